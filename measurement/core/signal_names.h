/*
 * Signal names and lists of signals as HP_FINALIZE_SIGNALS and HP_DUMP_SIGNAL spell them:
 * names with or without the SIG prefix (TERM, SIGTERM, any case), real-time signals
 * counted from either end (SIGRTMIN+3, RTMAX-1), or numbers 1 to 64, separated by commas,
 * or "none". Pure functions, shared by the configuration check (which also runs in
 * hp-info) and the signal handling of the measurement.
 */
#ifndef HP_MEASUREMENT_SIGNAL_NAMES_H
#define HP_MEASUREMENT_SIGNAL_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* A set of signals 1..64: bit n-1 stands for signal n. */
typedef uint64_t hp_signal_set;

/* The set holding signal sig (1..64) only. */
static inline hp_signal_set hp_signal_bit(int sig)
{
    return (hp_signal_set)1 << (sig - 1);
}

static inline int hp_signal_set_has(hp_signal_set set, int sig)
{
    return sig >= 1 && sig <= 64 && (set & hp_signal_bit(sig)) != 0;
}

/* Sampling's timer signal is SIGRTMIN + this (measurement/sampling/sampling.c); the lists
 * refuse it, as the sampling handler owns it. */
enum { HP_SAMPLE_SIGNAL_OFFSET = 6 };

/* Parses a comma-separated list ("" and "none" give the empty set). Returns 0, or -1 with
 * the offending item and why it is refused in why (e.g. "KILL cannot be caught"). */
int hp_signal_parse_list(const char *s, hp_signal_set *out, char *why, size_t whylen);

/* The name without SIG ("TERM"; real-time signals as `kill -l` names them, "RTMIN+3",
 * "RTMAX-1"), or NULL for a number without a name (32, 33). Async-signal-safe: returns
 * a constant string. */
const char *hp_signal_name(int sig);

/* What the lists accept, for error messages and hp-info. */
#define HP_SIGNAL_LIST_FORMS \
    "signal names with or without SIG (TERM, SIGINT), real-time signals (SIGRTMIN+3, " \
    "RTMAX-1) or numbers 1 to 64, separated by commas, or none; only signals whose " \
    "default action ends the program (not KILL, STOP, CHLD, CONT, URG, WINCH, TSTP, " \
    "TTIN, TTOU, nor the crash signals SEGV, BUS, FPE, ILL, ABRT, TRAP, SYS), not the " \
    "C library's 32 and 33, nor SIGRTMIN+6, which sampling uses"

#endif
