/* t101-instrument-fallback: a unit that the GCC plug-in instruments as usual. */
__attribute__((noinline)) int part(int i)
{
    return i % 3;
}
