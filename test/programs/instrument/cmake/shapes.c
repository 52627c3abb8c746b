int shapes_perimeter(int w, int h)
{
    return 2 * (w + h);
}
