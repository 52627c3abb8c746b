/*
 * Fortran procedures under the names a Fortran user reads. gfortran gives the
 * procedure p of module m the symbol "__m_MOD_p" (names are lowercase, so "_MOD_" is
 * its own), and the main program the symbol "MAIN__" (its name is only in the
 * compiler's declaration and in DWARF, which the callers read). Shared by the GCC
 * plug-in and the run time's symbolization, so both name a procedure alike.
 */
#ifndef HP_UTIL_FORTRAN_NAMES_H
#define HP_UTIL_FORTRAN_NAMES_H

#include <stddef.h>

/* gfortran's symbol of its main program. */
#define HP_FORTRAN_MAIN_SYMBOL "MAIN__"

/* Writes "m::p" for a module procedure's symbol "__m_MOD_p" into out (size bytes, cut
 * short and NUL-terminated when too small). Returns the length of "m::p", or 0 (out
 * untouched) when symbol is not such a name. */
size_t hp_fortran_module_name(const char *symbol, char *out, size_t size);

#endif
