/*
 * Locating an installation's directories from the commands (see install_dirs.c).
 */
#ifndef HP_INSTRUMENTER_INSTALL_DIRS_H
#define HP_INSTRUMENTER_INSTALL_DIRS_H

/* A malloc'd copy of a followed by b, or NULL when out of memory. */
char *hp_concat(const char *a, const char *b);

/* The directory named by env_var if set, else "<dir of this executable>/<sibling>" if
 * <marker> exists inside it, else configured. Malloc'd, NULL when out of memory. */
char *hp_install_dir(const char *env_var, const char *sibling, const char *marker,
                     const char *configured);

#endif
