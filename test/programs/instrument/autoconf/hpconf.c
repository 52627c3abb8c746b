#include <stdio.h>

double area_of_circle(double r);
double side_of_square(double area);

int main(void)
{
#ifndef HAVE_MATH_H
    puts("configure did not find math.h");
    return 1;
#endif
    printf("side=%.0f\n", side_of_square(area_of_circle(1.0) / 3.14159265358979 * 49.0));
    return 0;
}
