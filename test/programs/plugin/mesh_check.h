// The second source file of mesh.cpp (a target for the compile-time filter's file rules).
int checked(int k);
