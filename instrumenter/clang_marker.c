/*
 * Linked into programs that hp-instrument links with clang's
 * -finstrument-functions-after-inlining (and exported to the dynamic symbol table): the
 * measurement library sees it through a weak reference, and the profile's
 * instrumentation note then names clang's hooks instead of -finstrument-functions.
 */
const int hp_clang_after_inlining_build = 1;
