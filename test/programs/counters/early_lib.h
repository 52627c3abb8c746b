/* libearly (early_lib.c): its constructor calls early_work; early_value gives the result. */
#ifndef EARLY_LIB_H
#define EARLY_LIB_H

int early_work(int n);
int early_value(void);

#endif
