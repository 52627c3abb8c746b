/*
 * hpmeasure's user region API: mark regions, phases and parameters in your own code.
 *
 * Every macro here compiles to nothing unless HP_USER_ENABLE is defined. hp-instrument
 * defines it (with -I for this header), so a program built with a plain compiler
 * references no hpmeasure symbol at all. With HP_USER_ENABLE the macros call
 * libhpmeasure, which hp-instrument links.
 *
 * Invariants:
 * - A region is named once per site: its handle (HP_USER_REGION_DEFINE) is static
 *   storage that remembers the region after the first BEGIN, so later BEGINs cost a load
 *   and the enter itself. Handles start zeroed and are never changed by the caller.
 * - BEGIN and END of one handle nest properly with other regions of the same thread,
 *   like function calls.
 * - A user region goes through the same filter as compiler regions (HP_FILTERING_FILE,
 *   REGION rules on its name and on the file of its first BEGIN); a filtered region costs
 *   one load per BEGIN and END.
 * - A parameter (HP_USER_PARAMETER_INT, HP_USER_PARAMETER_STRING) opens a node
 *   "name=value" below the current call path, so that what follows is measured separately
 *   per value. It stays open until the innermost enclosing user region ends.
 *
 * Thread safety: every function may be called from any thread. None is
 * async-signal-safe. None allocates memory after a site's first call, takes a lock
 * after it, or changes errno.
 */
#ifndef HP_USER_H
#define HP_USER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported from libhpmeasure, which is built with hidden visibility by default. */
#if defined(__GNUC__)
#define HP_USER_API __attribute__((visibility("default")))
#else
#define HP_USER_API
#endif

/* What a region is; stored as its Cube role. */
typedef enum hp_user_region_type {
    HP_USER_REGION_TYPE_COMMON = 0,   /* role "user" */
    HP_USER_REGION_TYPE_FUNCTION = 1, /* role "function" */
    HP_USER_REGION_TYPE_LOOP = 2,     /* role "loop" */
    HP_USER_REGION_TYPE_PHASE = 3     /* role "phase": a phase of the program */
} hp_user_region_type;

/* One region site's state. Opaque: zero-initialize it (static storage does) and pass
 * its address; never read or write the member. The same layout as a Fortran
 * integer(c_intptr_t). */
typedef struct hp_user_region {
    uintptr_t hp_private;
} hp_user_region;

/* Enters the region of handle, defining it from name (copied), file and line on the
 * first call. type is an hp_user_region_type; an unknown value counts as COMMON. */
HP_USER_API void hp_user_region_begin(hp_user_region *handle, const char *name, int type,
                          const char *file, int line);

/* Leaves the region of handle, first closing the parameters opened inside it. */
HP_USER_API void hp_user_region_end(hp_user_region *handle);

/* Opens the node "name=value" (name and value copied on first sight) below the current
 * call path until the innermost enclosing user region ends. */
HP_USER_API void hp_user_parameter_int(const char *name, int64_t value);
HP_USER_API void hp_user_parameter_string(const char *name, const char *value);

/* Used by HP_USER_SCOPE in C (cleanup attribute): begins and returns handle, and ends
 * *handle_ptr. Not for direct use. */
HP_USER_API hp_user_region *hp_user_scope_begin(hp_user_region *handle, const char *name, int type,
                                    const char *file, int line);
HP_USER_API void hp_user_scope_end(hp_user_region **handle_ptr);

#ifdef __cplusplus
}
#endif

#define HP_USER_CONCAT2_(a, b) a##b
#define HP_USER_CONCAT_(a, b) HP_USER_CONCAT2_(a, b)
#if defined(__GNUC__)
#define HP_USER_UNUSED_ __attribute__((unused))
#else
#define HP_USER_UNUSED_
#endif

#ifdef HP_USER_ENABLE

/* Declares a region handle: static storage, at file or block scope. */
#define HP_USER_REGION_DEFINE(handle) static hp_user_region handle HP_USER_UNUSED_

#define HP_USER_REGION_BEGIN(handle, name, type) \
    hp_user_region_begin(&(handle), (name), (type), __FILE__, __LINE__)
#define HP_USER_REGION_END(handle) hp_user_region_end(&(handle))

/* Phase markers: a region of type PHASE. */
#define HP_USER_PHASE_BEGIN(handle, name) \
    HP_USER_REGION_BEGIN(handle, name, HP_USER_REGION_TYPE_PHASE)
#define HP_USER_PHASE_END(handle) HP_USER_REGION_END(handle)

#define HP_USER_PARAMETER_INT(name, value) hp_user_parameter_int((name), (int64_t)(value))
#define HP_USER_PARAMETER_STRING(name, value) hp_user_parameter_string((name), (value))

/* A region from here to the end of the enclosing block (C: cleanup attribute; C++: an
 * object's destructor), so every return and, in C++, every exception ends it. */
#ifdef __cplusplus
namespace hp {
class user_scope {
public:
    user_scope(hp_user_region *handle, const char *name, int type, const char *file, int line)
        : handle_(handle)
    {
        hp_user_region_begin(handle, name, type, file, line);
    }
    ~user_scope() { hp_user_region_end(handle_); }

private:
    user_scope(const user_scope &);            /* not copyable (C++98 spelling) */
    user_scope &operator=(const user_scope &);
    hp_user_region *handle_;
};
} /* namespace hp */
#define HP_USER_SCOPE_AT_(name, type, id)                                                \
    static hp_user_region HP_USER_CONCAT_(hp_user_handle_, id);                          \
    hp::user_scope HP_USER_CONCAT_(hp_user_scope_, id)(                                  \
        &HP_USER_CONCAT_(hp_user_handle_, id), (name), (type), __FILE__, __LINE__)
#else
#define HP_USER_SCOPE_AT_(name, type, id)                                                \
    static hp_user_region HP_USER_CONCAT_(hp_user_handle_, id);                          \
    hp_user_region *HP_USER_CONCAT_(hp_user_scope_, id)                                  \
        __attribute__((cleanup(hp_user_scope_end), unused)) = hp_user_scope_begin(       \
            &HP_USER_CONCAT_(hp_user_handle_, id), (name), (type), __FILE__, __LINE__)
#endif
/* __COUNTER__ (GCC, Clang) numbers each use, so a line may hold several. */
#define HP_USER_SCOPE(name, type) HP_USER_SCOPE_AT_(name, type, __COUNTER__)
/* The enclosing function, as a region of type FUNCTION named after it. */
#define HP_USER_FUNCTION() HP_USER_SCOPE(__func__, HP_USER_REGION_TYPE_FUNCTION)

#else /* !HP_USER_ENABLE: nothing is referenced */

/* A declaration that defines nothing, so `HP_USER_REGION_DEFINE(h);` stays valid at file
 * and block scope without an unused-variable warning. */
#define HP_USER_REGION_DEFINE(handle) extern int hp_user_disabled_ HP_USER_UNUSED_
#define HP_USER_REGION_BEGIN(handle, name, type) ((void)0)
#define HP_USER_REGION_END(handle) ((void)0)
#define HP_USER_PHASE_BEGIN(handle, name) ((void)0)
#define HP_USER_PHASE_END(handle) ((void)0)
#define HP_USER_PARAMETER_INT(name, value) ((void)0)
#define HP_USER_PARAMETER_STRING(name, value) ((void)0)
#define HP_USER_SCOPE(name, type) ((void)0)
#define HP_USER_FUNCTION() ((void)0)

#endif /* HP_USER_ENABLE */

#endif
