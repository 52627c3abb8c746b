// C++ names: a namespace, a class with member functions, overloads, a template.
#include <cstdio>

namespace geo {
struct Circle {
    double r;
    __attribute__((noinline)) double area() const { return 3.0 * r * r; }
    __attribute__((noinline)) void scale(double f) { r *= f; }
};

__attribute__((noinline)) double twice(double x) { return 2 * x; }
__attribute__((noinline)) int twice(int x) { return 2 * x; }

template <typename T> __attribute__((noinline)) T sum3(T a, T b, T c) { return a + b + c; }
} // namespace geo

int main()
{
    geo::Circle c{1.0};
    c.scale(2.0);
    double a = c.area();
    double s = geo::sum3<double>(a, geo::twice(1.0), 0.0) + geo::sum3<int>(1, geo::twice(2), 3);
    std::printf("s=%.1f\n", s);
    return 0;
}
