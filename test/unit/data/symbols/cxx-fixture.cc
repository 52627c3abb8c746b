// C++ fixture for test-symbols: a shared library with a mangled member function of a
// class template in a namespace. The test dlopens it (RTLD_LOCAL, after
// hp_symbols_init) and resolves ns::Foo<int>::bar(double) const, which checks the
// re-report of modules, demangling through a libstdc++ that is only reachable via this
// library, and file/line of an out-of-class member definition.
//
// Build: g++ -g -O0 -fPIC -shared -Wl,--no-as-needed -lstdc++ -o libcxx-fixture.so cxx-fixture.cc
// (--no-as-needed keeps libstdc++ a dependency, so loading this library brings
// __cxa_demangle into the process as a C++ plugin would).

namespace ns {

template <typename T> struct Foo {
    T scale;
    double bar(double x) const;
};

extern "C" const int hp_fixture_bar_line = __LINE__ + 1;
template <typename T> double Foo<T>::bar(double x) const
{
    return x * scale;
}

template struct Foo<int>; // explicit instantiation: emits ns::Foo<int>::bar

} // namespace ns
