/*
 * The Fortran face of the user region API, called by the macros of include/hp/user.inc.
 *
 * Fortran passes every argument by reference and its strings without a terminating NUL,
 * so the macros pass each string's length explicitly (len_trim), and these entry points
 * copy the string into a terminated buffer before calling the C API. The names follow
 * gfortran's convention for external procedures (lower case, one trailing underscore); the
 * handle is an integer(8) with the layout of hp_user_region. Names longer than the
 * buffer are cut: user region names are short.
 */
#include <stdint.h>
#include <string.h>

#include "include/hp/user.h"
#include "util/compiler.h"

enum { TEXT_MAX = 256 };

HP_API void hpf_region_begin_(hp_user_region *handle, const char *name, const int *name_len,
                              const int *type);
HP_API void hpf_region_end_(hp_user_region *handle);
HP_API void hpf_parameter_int_(const char *name, const int *name_len, const int64_t *value);
HP_API void hpf_parameter_string_(const char *name, const int *name_len, const char *value,
                                  const int *value_len);

/* Copies a Fortran string of len bytes into out (TEXT_MAX bytes), terminated. */
static const char *terminated(char *out, const char *s, int len)
{
    size_t n = len > 0 ? (size_t)len : 0;
    if (n >= TEXT_MAX)
        n = TEXT_MAX - 1;
    memcpy(out, s, n);
    out[n] = '\0';
    return out;
}

void hpf_region_begin_(hp_user_region *handle, const char *name, const int *name_len,
                       const int *type)
{
    char buf[TEXT_MAX];
    /* Only the first BEGIN reads the name: skip the copy once the handle is set. */
    if (__atomic_load_n(&handle->hp_private, __ATOMIC_ACQUIRE) != 0)
        hp_user_region_begin(handle, "", *type, "", -1);
    else
        hp_user_region_begin(handle, terminated(buf, name, *name_len), *type, "", -1);
}

void hpf_region_end_(hp_user_region *handle)
{
    hp_user_region_end(handle);
}

void hpf_parameter_int_(const char *name, const int *name_len, const int64_t *value)
{
    char buf[TEXT_MAX];
    hp_user_parameter_int(terminated(buf, name, *name_len), *value);
}

void hpf_parameter_string_(const char *name, const int *name_len, const char *value,
                           const int *value_len)
{
    char nbuf[TEXT_MAX], vbuf[TEXT_MAX];
    hp_user_parameter_string(terminated(nbuf, name, *name_len),
                             terminated(vbuf, value, *value_len));
}
