/*
 * Linked into build-system test programs (autoconf's conftest, CMake's cmTC_*) by
 * hp-instrument, and exported to the dynamic symbol table: the measurement library sees
 * it through a weak reference and then measures nothing and writes no experiment.
 */
const int hp_configure_probe = 1;
