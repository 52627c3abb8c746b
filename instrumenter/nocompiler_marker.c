/*
 * Linked into programs built with `hp-instrument --nocompiler` (and exported to the
 * dynamic symbol table): the measurement library sees it through a weak reference and
 * then samples by default, since such programs have no function hooks.
 */
const int hp_nocompiler_build = 1;
