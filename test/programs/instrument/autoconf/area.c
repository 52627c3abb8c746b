#include <math.h>

static const double pi = 3.14159265358979;

double area_of_circle(double r)
{
    return pi * r * r;
}

double side_of_square(double area)
{
    return sqrt(area);
}
