/*
 * Fortran module procedures' symbols as "module::procedure" (fortran_names.h).
 */
#include "fortran_names.h"

#include <stdio.h>
#include <string.h>

size_t hp_fortran_module_name(const char *symbol, char *out, size_t size)
{
    static const char mod[] = "_MOD_";
    if (strncmp(symbol, "__", 2) != 0)
        return 0;
    /* The module's name is not empty, so the search starts one past its first letter. */
    const char *sep = symbol[2] != '\0' ? strstr(symbol + 3, mod) : NULL;
    if (sep == NULL || sep[sizeof(mod) - 1] == '\0')
        return 0;
    int n = snprintf(out, size, "%.*s::%s", (int)(sep - symbol - 2), symbol + 2,
                     sep + sizeof(mod) - 1);
    return n > 0 ? (size_t)n : 0;
}
