#include <stdio.h>

int shapes_perimeter(int w, int h);

int main(void)
{
    printf("perimeter=%d\n", shapes_perimeter(3, 4));
    return 0;
}
