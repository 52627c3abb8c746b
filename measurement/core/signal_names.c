/*
 * Signal names and the parser of signal lists (HP_FINALIZE_SIGNALS, HP_DUMP_SIGNAL).
 *
 * Only signals that end the program by default are accepted: those are the ones a batch
 * system or a user sends to stop a run, and after our handler the default action still
 * happens. Crash signals are refused because the program's state (its heap) cannot be
 * trusted for writing files when they arrive.
 */
#include "signal_names.h"

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct signal_entry {
    const char *name;
    int number;
    const char *refused; /* why it cannot be listed, NULL when it can */
} signal_entry;

static const signal_entry signals[] = {
    { "HUP", SIGHUP, NULL },
    { "INT", SIGINT, NULL },
    { "QUIT", SIGQUIT, NULL },
    { "ILL", SIGILL, "is a crash signal" },
    { "TRAP", SIGTRAP, "is a crash signal" },
    { "ABRT", SIGABRT, "is a crash signal" },
    { "BUS", SIGBUS, "is a crash signal" },
    { "FPE", SIGFPE, "is a crash signal" },
    { "KILL", SIGKILL, "cannot be caught" },
    { "USR1", SIGUSR1, NULL },
    { "SEGV", SIGSEGV, "is a crash signal" },
    { "USR2", SIGUSR2, NULL },
    { "PIPE", SIGPIPE, NULL },
    { "ALRM", SIGALRM, NULL },
    { "TERM", SIGTERM, NULL },
    { "STKFLT", SIGSTKFLT, NULL },
    { "CHLD", SIGCHLD, "does not end the program by default" },
    { "CONT", SIGCONT, "does not end the program by default" },
    { "STOP", SIGSTOP, "cannot be caught" },
    { "TSTP", SIGTSTP, "does not end the program by default" },
    { "TTIN", SIGTTIN, "does not end the program by default" },
    { "TTOU", SIGTTOU, "does not end the program by default" },
    { "URG", SIGURG, "does not end the program by default" },
    { "XCPU", SIGXCPU, NULL },
    { "XFSZ", SIGXFSZ, NULL },
    { "VTALRM", SIGVTALRM, NULL },
    { "PROF", SIGPROF, NULL },
    { "WINCH", SIGWINCH, "does not end the program by default" },
    { "IO", SIGIO, NULL },
    { "PWR", SIGPWR, NULL },
    { "SYS", SIGSYS, "is a crash signal" },
};

enum { NSIGNALS = sizeof(signals) / sizeof(signals[0]) };

static const signal_entry *by_number(int sig)
{
    for (int i = 0; i < NSIGNALS; i++)
        if (signals[i].number == sig)
            return &signals[i];
    return NULL;
}

/* Real-time signals as `kill -l` names them: the lower half from RTMIN, the upper half
 * from RTMAX (glibc has 31 of them, 34 to 64). */
static const char *const realtime_names[] = {
    "RTMIN", "RTMIN+1", "RTMIN+2", "RTMIN+3", "RTMIN+4", "RTMIN+5", "RTMIN+6", "RTMIN+7",
    "RTMIN+8", "RTMIN+9", "RTMIN+10", "RTMIN+11", "RTMIN+12", "RTMIN+13", "RTMIN+14",
    "RTMIN+15", "RTMAX-14", "RTMAX-13", "RTMAX-12", "RTMAX-11", "RTMAX-10", "RTMAX-9",
    "RTMAX-8", "RTMAX-7", "RTMAX-6", "RTMAX-5", "RTMAX-4", "RTMAX-3", "RTMAX-2", "RTMAX-1",
    "RTMAX",
};

const char *hp_signal_name(int sig)
{
    const signal_entry *e = by_number(sig);
    int n = (int)(sizeof(realtime_names) / sizeof(realtime_names[0]));
    if (e != NULL)
        return e->name;
    if (SIGRTMAX - SIGRTMIN + 1 == n && sig >= SIGRTMIN && sig <= SIGRTMAX)
        return realtime_names[sig - SIGRTMIN];
    return NULL;
}

/* A real-time signal counted from either end, SIG already taken off: RTMIN, RTMIN+n,
 * RTMAX, RTMAX-n. Returns its number, 0 when name has none of these forms, or -1 when it
 * has one but no such signal exists. */
static int realtime_number(const char *name)
{
    int base, sign;
    if (strncasecmp(name, "RTMIN", 5) == 0) {
        base = SIGRTMIN;
        sign = 1;
    } else if (strncasecmp(name, "RTMAX", 5) == 0) {
        base = SIGRTMAX;
        sign = -1;
    } else {
        return 0;
    }
    const char *rest = name + 5;
    if (*rest == '\0')
        return base;
    if (*rest != (sign > 0 ? '+' : '-') || !isdigit((unsigned char)rest[1]))
        return -1;
    char *end;
    long n = strtol(rest + 1, &end, 10);
    if (*end != '\0' || n > SIGRTMAX - SIGRTMIN)
        return -1;
    return base + sign * (int)n;
}

/* Why sig cannot be listed, or NULL when it can. */
static const char *refusal(int sig)
{
    const signal_entry *e = by_number(sig);
    if (e != NULL)
        return e->refused;
    if (sig < SIGRTMIN)
        return "is taken by the C library for its threads (below SIGRTMIN)"; /* 32, 33 */
    if (sig == SIGRTMIN + HP_SAMPLE_SIGNAL_OFFSET)
        return "is the signal of hpmeasure's sampling (SIGRTMIN+6)";
    return NULL;
}

/* Parses one item (len characters at s) into *sig. Returns 0 or -1 with why set. */
static int parse_item(const char *s, size_t len, int *sig, char *why, size_t whylen)
{
    char item[32];
    if (len == 0 || len >= sizeof(item)) {
        snprintf(why, whylen, "'%.*s' is not a signal", (int)(len < 40 ? len : 40), s);
        return -1;
    }
    memcpy(item, s, len);
    item[len] = '\0';
    if (isdigit((unsigned char)item[0])) {
        char *end;
        long n = strtol(item, &end, 10);
        if (*end != '\0' || n < 1 || n > SIGRTMAX || n > 64) {
            snprintf(why, whylen, "%s is not a signal number (1 to %d)", item, SIGRTMAX);
            return -1;
        }
        *sig = (int)n;
    } else {
        const char *name = strncasecmp(item, "SIG", 3) == 0 ? item + 3 : item;
        const signal_entry *e = NULL;
        for (int i = 0; i < NSIGNALS && e == NULL; i++)
            if (strcasecmp(name, signals[i].name) == 0)
                e = &signals[i];
        int rt = e == NULL ? realtime_number(name) : 0;
        if (rt < 0) {
            snprintf(why, whylen, "%s is not a real-time signal (SIGRTMIN+0 to SIGRTMIN+%d, "
                     "or SIGRTMAX-%d to SIGRTMAX)", item, SIGRTMAX - SIGRTMIN,
                     SIGRTMAX - SIGRTMIN);
            return -1;
        }
        if (e == NULL && rt == 0) {
            snprintf(why, whylen, "%s is not a signal name", item);
            return -1;
        }
        *sig = e != NULL ? e->number : rt;
    }
    const char *refused = refusal(*sig);
    if (refused != NULL) {
        snprintf(why, whylen, "%s %s", item, refused);
        return -1;
    }
    return 0;
}

int hp_signal_parse_list(const char *s, hp_signal_set *out, char *why, size_t whylen)
{
    *out = 0;
    if (s[0] == '\0' || strcasecmp(s, "none") == 0)
        return 0;
    for (const char *p = s;;) {
        size_t len = strcspn(p, ",");
        while (len > 0 && isspace((unsigned char)*p)) {
            p++;
            len--;
        }
        while (len > 0 && isspace((unsigned char)p[len - 1]))
            len--;
        int sig;
        if (parse_item(p, len, &sig, why, whylen) < 0)
            return -1;
        *out |= hp_signal_bit(sig);
        p += strcspn(p, ",");
        if (*p == '\0')
            return 0;
        p++;
    }
}
