/*
 * Unit tests of the filter-file parser and matcher (measurement/core/filter.c) against
 * formats/FILTER.md: the format's own example, block order, rule continuation,
 * MANGLED/DEMANGLED switching, last-match-wins, file-block precedence, path
 * normalisation, escapes and comments, every syntax error with its exact message and
 * line, reading from files, and concurrent matching.
 */
#if !defined(_GNU_SOURCE) && !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700 /* mkstemp() under -std=c11 */
#endif

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "measurement/core/filter.h"
#include "test.h"

/* Parses text as "t.filt" into the new variable f, failing the test on a syntax error. */
#define PARSE(f, text)                                                                 \
    char f##_err[512] = "unchanged";                                                   \
    hp_filter *f = hp_filter_parse((text), "t.filt", f##_err, sizeof f##_err);         \
    if (f == NULL)                                                                     \
        HP_TEST_FAIL("unexpected parse error: %s", f##_err);                          \
    ASSERT_STR_EQ(f##_err, "")

/* Parsing text must fail with exactly message. */
#define ASSERT_PARSE_ERROR(text, message)                                              \
    do {                                                                               \
        char e_[512] = "";                                                             \
        hp_filter *f_ = hp_filter_parse((text), "t.filt", e_, sizeof e_);              \
        if (f_ != NULL) {                                                              \
            hp_filter_free(f_);                                                        \
            HP_TEST_FAIL("parsed, expected error \"%s\"", (message));                  \
        }                                                                              \
        ASSERT_STR_EQ(e_, (message));                                                  \
    } while (0)

#define EXCLUDED(f, file, name, mangled) ASSERT(hp_filter_excludes((f), (file), (name), (mangled)))
#define INCLUDED(f, file, name, mangled) ASSERT(!hp_filter_excludes((f), (file), (name), (mangled)))

/* The example of formats/FILTER.md, verbatim. */
static const char format_example[] =
    "# comment to end of line; '#' inside a name must be written as '\\#'\n"
    "SCOREP_FILE_NAMES_BEGIN\n"
    "  EXCLUDE */third_party/*\n"
    "  INCLUDE */third_party/hot_kernel.c\n"
    "SCOREP_FILE_NAMES_END\n"
    "\n"
    "SCOREP_REGION_NAMES_BEGIN\n"
    "  EXCLUDE *\n"
    "  INCLUDE main solve*\n"
    "          MPI_*\n"
    "  INCLUDE MANGLED _ZN3sim9Particles4stepEv\n"
    "SCOREP_REGION_NAMES_END\n";

static int check_format_example(const hp_filter *f)
{
    ASSERT(!hp_filter_is_empty(f));
    /* Region block: everything out except main, solve*, MPI_* and one mangled name. */
    INCLUDED(f, "/home/u/app/main.c", "main", NULL);
    INCLUDED(f, "/home/u/app/solver.c", "solve_cg", "solve_cg");
    INCLUDED(f, "/home/u/app/solver.c", "solve", NULL);
    INCLUDED(f, NULL, "MPI_Send", NULL); /* pattern on a continuation line */
    EXCLUDED(f, "/home/u/app/util.c", "helper", NULL);
    EXCLUDED(f, NULL, "Solve", NULL); /* patterns are case-sensitive */
    INCLUDED(f, "/home/u/app/sim.cpp", "sim::Particles::step()", "_ZN3sim9Particles4stepEv");
    EXCLUDED(f, "/home/u/app/sim.cpp", "sim::Particles::step(int)", "_ZN3sim9Particles4stepEi");
    /* The mangled pattern is not matched against the displayed name when a mangled one
     * exists, but is when there is none. */
    EXCLUDED(f, NULL, "_ZN3sim9Particles4stepEv", "_Z5otherv");
    INCLUDED(f, NULL, "_ZN3sim9Particles4stepEv", NULL);
    /* File block: third_party is out, except hot_kernel.c; it wins over the region block. */
    EXCLUDED(f, "/home/u/app/third_party/blas.c", "main", NULL);
    EXCLUDED(f, "/home/u/app/third_party/sub/dir/x.c", "solve", NULL);
    INCLUDED(f, "/home/u/app/third_party/hot_kernel.c", "main", NULL);
    EXCLUDED(f, "/home/u/app/third_party/hot_kernel.c", "kernel", NULL);
    /* Unknown file: only the region block applies. */
    INCLUDED(f, NULL, "main", NULL);
    INCLUDED(f, "", "main", NULL);
    EXCLUDED(f, "", "helper", NULL);
    return 0;
}

TEST(format_example_verbatim)
{
    PARSE(f, format_example);
    int rc = check_format_example(f);
    hp_filter_free(f);
    return rc;
}

TEST(empty_filters_nothing)
{
    static const char *const texts[] = {
        "",
        "   \n\n\t\n",
        "# only a comment\n# and another \\\n",
        "SCOREP_REGION_NAMES_BEGIN\nSCOREP_REGION_NAMES_END\n",
        "SCOREP_FILE_NAMES_BEGIN SCOREP_FILE_NAMES_END",
        "SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE\n  INCLUDE MANGLED\nSCOREP_REGION_NAMES_END\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        PARSE(f, texts[i]);
        ASSERT(hp_filter_is_empty(f));
        INCLUDED(f, "/a/b.c", "main", "main");
        INCLUDED(f, NULL, "x", "_Z1xv");
        hp_filter_free(f);
    }
    return 0;
}

TEST(null_filter_excludes_nothing)
{
    ASSERT(hp_filter_is_empty(NULL));
    INCLUDED(NULL, "/a.c", "main", NULL);
    hp_filter_free(NULL);
    return 0;
}

TEST(is_empty_only_without_patterns)
{
    PARSE(f, "SCOREP_REGION_NAMES_BEGIN INCLUDE * SCOREP_REGION_NAMES_END");
    ASSERT(!hp_filter_is_empty(f)); /* has a rule, even though it filters nothing */
    INCLUDED(f, NULL, "main", NULL);
    hp_filter_free(f);
    PARSE(g, "SCOREP_FILE_NAMES_BEGIN EXCLUDE *.f90 SCOREP_FILE_NAMES_END");
    ASSERT(!hp_filter_is_empty(g));
    hp_filter_free(g);
    return 0;
}

TEST(blocks_in_any_order_and_optional)
{
    PARSE(f, "SCOREP_REGION_NAMES_BEGIN\n"
             "  EXCLUDE tiny_*\n"
             "SCOREP_REGION_NAMES_END\n"
             "SCOREP_FILE_NAMES_BEGIN\n"
             "  EXCLUDE */gen/*\n"
             "SCOREP_FILE_NAMES_END\n");
    EXCLUDED(f, "/s/a.c", "tiny_add", NULL);
    INCLUDED(f, "/s/a.c", "main", NULL);
    EXCLUDED(f, "/s/gen/a.c", "main", NULL);
    hp_filter_free(f);

    PARSE(files_only, "SCOREP_FILE_NAMES_BEGIN\n  EXCLUDE */gen/*\nSCOREP_FILE_NAMES_END\n");
    EXCLUDED(files_only, "/s/gen/a.c", "main", NULL);
    INCLUDED(files_only, "/s/a.c", "main", NULL);
    INCLUDED(files_only, NULL, "main", NULL);
    hp_filter_free(files_only);

    PARSE(regions_only, "SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE main\nSCOREP_REGION_NAMES_END\n");
    EXCLUDED(regions_only, "/s/gen/a.c", "main", NULL);
    INCLUDED(regions_only, "/s/gen/a.c", "other", NULL);
    hp_filter_free(regions_only);
    return 0;
}

/* Score-P accepts a block kind more than once; the rules simply continue in file order. */
TEST(repeated_block_continues_rules)
{
    PARSE(f, "SCOREP_REGION_NAMES_BEGIN EXCLUDE a* SCOREP_REGION_NAMES_END\n"
             "SCOREP_FILE_NAMES_BEGIN SCOREP_FILE_NAMES_END\n"
             "SCOREP_REGION_NAMES_BEGIN INCLUDE ab SCOREP_REGION_NAMES_END\n");
    EXCLUDED(f, NULL, "ax", NULL);
    INCLUDED(f, NULL, "ab", NULL);
    hp_filter_free(f);
    return 0;
}

TEST(keywords_are_case_sensitive)
{
    /* Inside a rule a wrongly cased keyword is just a pattern. */
    PARSE(f, "SCOREP_REGION_NAMES_BEGIN\n"
             "  EXCLUDE foo Include mangled\n"
             "  bar\n"
             "SCOREP_REGION_NAMES_END\n");
    EXCLUDED(f, NULL, "Include", NULL);
    EXCLUDED(f, NULL, "mangled", NULL);
    EXCLUDED(f, NULL, "bar", NULL); /* still the EXCLUDE rule */
    hp_filter_free(f);
    ASSERT_PARSE_ERROR("scorep_region_names_begin\n",
                       "t.filt:1: found 'scorep_region_names_begin', expected "
                       "SCOREP_FILE_NAMES_BEGIN or SCOREP_REGION_NAMES_BEGIN");
    ASSERT_PARSE_ERROR("SCOREP_REGION_NAMES_BEGIN\n  exclude foo\nSCOREP_REGION_NAMES_END\n",
                       "t.filt:2: found 'exclude', expected INCLUDE, EXCLUDE or "
                       "SCOREP_REGION_NAMES_END");
    return 0;
}

TEST(rule_continues_until_next_keyword)
{
    PARSE(f, "SCOREP_REGION_NAMES_BEGIN\n"
             "  EXCLUDE a\tb   c\n"
             "\n"
             "     d # comment between patterns\n"
             "  e\n"
             "  INCLUDE f\n"
             "  g\n"
             "SCOREP_REGION_NAMES_END\n");
    EXCLUDED(f, NULL, "a", NULL);
    EXCLUDED(f, NULL, "b", NULL);
    EXCLUDED(f, NULL, "c", NULL);
    EXCLUDED(f, NULL, "d", NULL);
    EXCLUDED(f, NULL, "e", NULL);
    INCLUDED(f, NULL, "f", NULL);
    INCLUDED(f, NULL, "g", NULL);
    INCLUDED(f, NULL, "comment", NULL);
    hp_filter_free(f);
    return 0;
}

TEST(last_matching_rule_wins)
{
    PARSE(f, "SCOREP_REGION_NAMES_BEGIN\n"
             "  EXCLUDE *\n"
             "  INCLUDE foo*\n"
             "  EXCLUDE foobar\n"
             "SCOREP_REGION_NAMES_END\n");
    EXCLUDED(f, NULL, "bar", NULL);
    INCLUDED(f, NULL, "foo", NULL);
    INCLUDED(f, NULL, "foo1", NULL);
    EXCLUDED(f, NULL, "foobar", NULL);
    hp_filter_free(f);

    /* Order matters: a later catch-all overrides an earlier INCLUDE. */
    PARSE(g, "SCOREP_REGION_NAMES_BEGIN INCLUDE foo EXCLUDE * SCOREP_REGION_NAMES_END");
    EXCLUDED(g, NULL, "foo", NULL);
    hp_filter_free(g);

    /* Same for files. */
    PARSE(h, "SCOREP_FILE_NAMES_BEGIN\n"
             "  EXCLUDE /src/*\n"
             "  INCLUDE /src/keep/*\n"
             "  EXCLUDE /src/keep/no.c\n"
             "SCOREP_FILE_NAMES_END\n");
    EXCLUDED(h, "/src/a.c", "f", NULL);
    INCLUDED(h, "/src/keep/a.c", "f", NULL);
    EXCLUDED(h, "/src/keep/no.c", "f", NULL);
    INCLUDED(h, "/other/a.c", "f", NULL);
    hp_filter_free(h);
    return 0;
}

TEST(everything_starts_included)
{
    PARSE(f, "SCOREP_REGION_NAMES_BEGIN INCLUDE foo SCOREP_REGION_NAMES_END\n"
             "SCOREP_FILE_NAMES_BEGIN INCLUDE *.c SCOREP_FILE_NAMES_END\n");
    INCLUDED(f, "/a.f90", "bar", NULL);
    INCLUDED(f, "/a.c", "foo", NULL);
    hp_filter_free(f);
    return 0;
}

TEST(wildcards)
{
    PARSE(f, "SCOREP_REGION_NAMES_BEGIN\n"
             "  EXCLUDE f?o  [xy]z  w[!0-9]  std::*  op*[]\n"
             "SCOREP_REGION_NAMES_END\n"
             "SCOREP_FILE_NAMES_BEGIN\n"
             "  EXCLUDE src/*.h  /usr/include/*  lib?.c\n"
             "SCOREP_FILE_NAMES_END\n");
    EXCLUDED(f, NULL, "foo", NULL);
    EXCLUDED(f, NULL, "f.o", NULL);
    INCLUDED(f, NULL, "fo", NULL);
    INCLUDED(f, NULL, "fooo", NULL);
    EXCLUDED(f, NULL, "xz", NULL);
    EXCLUDED(f, NULL, "yz", NULL);
    INCLUDED(f, NULL, "zz", NULL);
    EXCLUDED(f, NULL, "wa", NULL);
    INCLUDED(f, NULL, "w1", NULL);
    EXCLUDED(f, NULL, "std::vector<int>::push_back(int const&)", NULL);
    EXCLUDED(f, NULL, "op[]", NULL); /* an unterminated '[' is an ordinary character */
    /* For file names '*' also matches '/', and '?' matches one character. */
    EXCLUDED(f, "src/a.h", "main", NULL);
    EXCLUDED(f, "src/deep/er/a.h", "main", NULL);
    INCLUDED(f, "src/a.c", "main", NULL);
    EXCLUDED(f, "/usr/include/c++/12/bits/stl_vector.h", "main", NULL);
    EXCLUDED(f, "lib1.c", "main", NULL);
    INCLUDED(f, "lib12.c", "main", NULL);
    /* Patterns match the whole name, not a part of it. */
    INCLUDED(f, "/home/src/a.h", "main", NULL);
    hp_filter_free(f);
    return 0;
}

TEST(mangled_demangled_switching)
{
    PARSE(f, "SCOREP_REGION_NAMES_BEGIN\n"
             "  EXCLUDE foo MANGLED _Z3barv\n"
             "          bar DEMANGLED baz\n"
             "          MANGLED DEMANGLED qux\n"
             "SCOREP_REGION_NAMES_END\n");
    /* foo: demangled (the rule starts so). */
    EXCLUDED(f, NULL, "foo", "_Z3foov");
    INCLUDED(f, NULL, "zzz", "foo");
    /* _Z3barv and bar: mangled, also across the line break. */
    EXCLUDED(f, NULL, "bar()", "_Z3barv");
    INCLUDED(f, NULL, "_Z3barv", "_Z3bazv");
    EXCLUDED(f, NULL, "x", "bar");
    INCLUDED(f, NULL, "bar", "_Z3barb");
    /* Without a different mangled name, MANGLED patterns match the displayed name. */
    EXCLUDED(f, NULL, "bar", NULL);
    EXCLUDED(f, NULL, "bar", "bar");
    EXCLUDED(f, NULL, "bar", "");
    EXCLUDED(f, NULL, "_Z3barv", NULL);
    /* baz, qux: demangled again after DEMANGLED. */
    EXCLUDED(f, NULL, "baz", "_Z3bazv");
    INCLUDED(f, NULL, "x", "baz");
    EXCLUDED(f, NULL, "qux", "_Z3quxv");
    INCLUDED(f, NULL, "x", "qux");
    hp_filter_free(f);
    return 0;
}

TEST(each_rule_starts_demangled)
{
    PARSE(f, "SCOREP_REGION_NAMES_BEGIN\n"
             "  EXCLUDE MANGLED _Z1av\n"
             "  EXCLUDE b\n"
             "  INCLUDE MANGLED _Z1cv\n"
             "  INCLUDE d\n"
             "SCOREP_REGION_NAMES_END\n");
    EXCLUDED(f, NULL, "a()", "_Z1av");
    EXCLUDED(f, NULL, "b", "_Z1bv");
    INCLUDED(f, NULL, "x", "b");
    INCLUDED(f, NULL, "d", "_Z1dv");
    hp_filter_free(f);

    /* A later rule's MANGLED pattern overrides an earlier demangled one (last match). */
    PARSE(g, "SCOREP_REGION_NAMES_BEGIN EXCLUDE * INCLUDE MANGLED _Z4keepv "
             "SCOREP_REGION_NAMES_END");
    INCLUDED(g, NULL, "keep()", "_Z4keepv");
    EXCLUDED(g, NULL, "drop()", "_Z4dropv");
    hp_filter_free(g);
    return 0;
}

TEST(file_block_applies_first)
{
    PARSE(f, "SCOREP_REGION_NAMES_BEGIN\n"
             "  EXCLUDE slow\n"
             "  INCLUDE *\n"
             "SCOREP_REGION_NAMES_END\n"
             "SCOREP_FILE_NAMES_BEGIN\n"
             "  EXCLUDE *_gen.c\n"
             "SCOREP_FILE_NAMES_END\n");
    /* An excluded file cannot be re-included by the region block. */
    EXCLUDED(f, "/s/parser_gen.c", "main", NULL);
    EXCLUDED(f, "/s/parser_gen.c", "main", "main");
    /* An included file still goes through the region block. */
    INCLUDED(f, "/s/main.c", "main", NULL);
    INCLUDED(f, "/s/main.c", "slow", NULL); /* INCLUDE * comes last */
    /* Unknown file: the file block does not apply. */
    INCLUDED(f, NULL, "main", NULL);
    INCLUDED(f, "", "main", NULL);
    hp_filter_free(f);

    PARSE(g, "SCOREP_FILE_NAMES_BEGIN INCLUDE * SCOREP_FILE_NAMES_END\n"
             "SCOREP_REGION_NAMES_BEGIN EXCLUDE tiny SCOREP_REGION_NAMES_END\n");
    EXCLUDED(g, "/s/main.c", "tiny", NULL);
    hp_filter_free(g);
    return 0;
}

TEST(file_names_are_normalised)
{
    PARSE(f, "SCOREP_FILE_NAMES_BEGIN\n"
             "  EXCLUDE /src/app/main.c src/rel.c\n"
             "SCOREP_FILE_NAMES_END\n");
    EXCLUDED(f, "/src/app/main.c", "main", NULL);
    EXCLUDED(f, "/src/./app/main.c", "main", NULL);
    EXCLUDED(f, "/src//app///main.c", "main", NULL);
    EXCLUDED(f, "//src/app/./main.c", "main", NULL);
    EXCLUDED(f, "/src/lib/../app/main.c", "main", NULL);
    EXCLUDED(f, "/src/app/x/y/../../main.c", "main", NULL);
    EXCLUDED(f, "/../src/app/main.c", "main", NULL);
    INCLUDED(f, "/src/app/other.c", "main", NULL);
    INCLUDED(f, "/src/app/../main.c", "main", NULL);
    EXCLUDED(f, "./src/rel.c", "main", NULL);
    EXCLUDED(f, "src/../src/./rel.c", "main", NULL);
    INCLUDED(f, "../src/rel.c", "main", NULL);
    hp_filter_free(f);
    return 0;
}

TEST(normalize_path_cases)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        { "/a/./b", "/a/b" },        { "a//b", "a/b" },          { "/a/b/../c", "/a/c" },
        { "/a/b/c/../../d", "/a/d" }, { "a/../../b", "../b" },   { "../a/..", ".." },
        { "../../x", "../../x" },    { "/../a", "/a" },          { "./a", "a" },
        { ".", "." },                { "a/..", "." },            { "/", "/" },
        { "//", "/" },               { "a/b/", "a/b" },          { "a/./../b", "b" },
        { "a/.../b", "a/.../b" },    { "a/.hidden/..x", "a/.hidden/..x" },
        { "/a/b/.", "/a/b" },        { "/.", "/" },              { "", "." },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[64];
        ASSERT_INT_EQ(hp_filter_normalize_path(cases[i].in, out, sizeof out), 0);
        ASSERT_STR_EQ(out, cases[i].out);
    }
    char small[5];
    ASSERT_INT_EQ(hp_filter_normalize_path("/abc", small, sizeof small), 0);
    ASSERT_STR_EQ(small, "/abc");
    ASSERT_INT_EQ(hp_filter_normalize_path("/abcd", small, sizeof small), -1);
    ASSERT_INT_EQ(hp_filter_normalize_path("a", small, 0), -1);
    return 0;
}

/* A file name too long to normalise on the stack is matched as given. */
TEST(very_long_file_name_still_matches)
{
    PARSE(f, "SCOREP_FILE_NAMES_BEGIN EXCLUDE */x.c SCOREP_FILE_NAMES_END");
    size_t n = 6000;
    char *path = malloc(n + 8);
    ASSERT(path != NULL);
    path[0] = '/';
    memset(path + 1, 'a', n);
    strcpy(path + 1 + n, "/x.c");
    EXCLUDED(f, path, "main", NULL);
    path[n + 3] = 'y';
    INCLUDED(f, path, "main", NULL);
    free(path);
    hp_filter_free(f);
    return 0;
}

TEST(escapes_and_comments)
{
    PARSE(f, "SCOREP_REGION_NAMES_BEGIN # comment after a keyword\n"
             "  EXCLUDE # nothing yet\n"
             "    foo\\ bar   a\\#b   star\\*   tab\\\tx   \\INCLUDE\n"
             "    cut#this is a comment\n"
             "    back\\\\#slash, then a comment\n"
             "    last\n"
             "SCOREP_REGION_NAMES_END # done\n");
    /* Escaped white space is part of the name. */
    EXCLUDED(f, NULL, "foo bar", NULL);
    INCLUDED(f, NULL, "foo", NULL);
    INCLUDED(f, NULL, "bar", NULL);
    /* '\#' is a literal '#', not a comment. */
    EXCLUDED(f, NULL, "a#b", NULL);
    INCLUDED(f, NULL, "a", NULL);
    /* Other escapes reach fnmatch, where '\*' is a literal '*'. */
    EXCLUDED(f, NULL, "star*", NULL);
    INCLUDED(f, NULL, "starlight", NULL);
    EXCLUDED(f, NULL, "tab\tx", NULL);
    /* An escaped keyword is a pattern. */
    EXCLUDED(f, NULL, "INCLUDE", NULL);
    /* '#' ends a word and starts a comment; the rule continues on the next line. */
    EXCLUDED(f, NULL, "cut", NULL);
    INCLUDED(f, NULL, "cut#this", NULL);
    INCLUDED(f, NULL, "comment", NULL);
    /* "\\" is an escaped backslash, so the '#' after it starts a comment. */
    EXCLUDED(f, NULL, "back\\", NULL);
    INCLUDED(f, NULL, "slash,", NULL);
    EXCLUDED(f, NULL, "last", NULL);
    INCLUDED(f, NULL, "nothing", NULL);
    INCLUDED(f, NULL, "done", NULL);
    hp_filter_free(f);

    /* Escaped white space and '#' in file names too. */
    PARSE(g, "SCOREP_FILE_NAMES_BEGIN EXCLUDE */My\\ Documents/*  *\\#1.c "
             "SCOREP_FILE_NAMES_END");
    EXCLUDED(g, "/home/u/My Documents/a.c", "main", NULL);
    EXCLUDED(g, "/home/u/take#1.c", "main", NULL);
    INCLUDED(g, "/home/u/My/a.c", "main", NULL);
    hp_filter_free(g);
    return 0;
}

TEST(crlf_line_ends)
{
    PARSE(f, "SCOREP_REGION_NAMES_BEGIN\r\n  EXCLUDE foo\r\n  bar # c\r\nSCOREP_REGION_NAMES_END\r\n");
    EXCLUDED(f, NULL, "foo", NULL);
    EXCLUDED(f, NULL, "bar", NULL);
    hp_filter_free(f);
    ASSERT_PARSE_ERROR("SCOREP_REGION_NAMES_BEGIN\r\n  EXCLUDE foo\\\r\n  bar\r\n",
                       "t.filt:2: found '\\' at end of line, expected a character to "
                       "escape after it");
    return 0;
}

TEST(error_word_outside_block)
{
    ASSERT_PARSE_ERROR("# leading comment\n\nfoo\n",
                       "t.filt:3: found 'foo', expected SCOREP_FILE_NAMES_BEGIN or "
                       "SCOREP_REGION_NAMES_BEGIN");
    ASSERT_PARSE_ERROR("SCOREP_REGION_NAMES_BEGIN\nSCOREP_REGION_NAMES_END\n  bar\n",
                       "t.filt:3: found 'bar', expected SCOREP_FILE_NAMES_BEGIN or "
                       "SCOREP_REGION_NAMES_BEGIN");
    /* A rule outside a block. */
    ASSERT_PARSE_ERROR("\n  EXCLUDE foo\n",
                       "t.filt:2: found 'EXCLUDE', expected SCOREP_FILE_NAMES_BEGIN or "
                       "SCOREP_REGION_NAMES_BEGIN");
    /* A keyword must be a word of its own. */
    ASSERT_PARSE_ERROR("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDEfoo\n",
                       "t.filt:2: found 'EXCLUDEfoo', expected INCLUDE, EXCLUDE or "
                       "SCOREP_REGION_NAMES_END");
    return 0;
}

TEST(error_pattern_before_rule)
{
    ASSERT_PARSE_ERROR("SCOREP_REGION_NAMES_BEGIN\n  main\n  EXCLUDE *\nSCOREP_REGION_NAMES_END\n",
                       "t.filt:2: found 'main', expected INCLUDE, EXCLUDE or "
                       "SCOREP_REGION_NAMES_END");
    ASSERT_PARSE_ERROR("SCOREP_FILE_NAMES_BEGIN\n\n  *.c\nSCOREP_FILE_NAMES_END\n",
                       "t.filt:3: found '*.c', expected INCLUDE, EXCLUDE or "
                       "SCOREP_FILE_NAMES_END");
    /* A rule does not carry over into the next block. */
    ASSERT_PARSE_ERROR("SCOREP_REGION_NAMES_BEGIN EXCLUDE a SCOREP_REGION_NAMES_END\n"
                       "SCOREP_REGION_NAMES_BEGIN\n  b\n",
                       "t.filt:3: found 'b', expected INCLUDE, EXCLUDE or "
                       "SCOREP_REGION_NAMES_END");
    return 0;
}

TEST(error_unterminated_block)
{
    ASSERT_PARSE_ERROR("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE foo\n",
                       "t.filt:2: found end of file, expected a pattern, INCLUDE, EXCLUDE, "
                       "MANGLED, DEMANGLED or SCOREP_REGION_NAMES_END");
    ASSERT_PARSE_ERROR("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE foo",
                       "t.filt:2: found end of file, expected a pattern, INCLUDE, EXCLUDE, "
                       "MANGLED, DEMANGLED or SCOREP_REGION_NAMES_END");
    ASSERT_PARSE_ERROR("SCOREP_FILE_NAMES_BEGIN\n\n# trailing comment\n",
                       "t.filt:3: found end of file, expected INCLUDE, EXCLUDE or "
                       "SCOREP_FILE_NAMES_END");
    ASSERT_PARSE_ERROR("SCOREP_FILE_NAMES_BEGIN\n  INCLUDE a.c\n\n\n",
                       "t.filt:4: found end of file, expected a pattern, INCLUDE, EXCLUDE or "
                       "SCOREP_FILE_NAMES_END");
    return 0;
}

TEST(error_end_without_begin)
{
    ASSERT_PARSE_ERROR("SCOREP_REGION_NAMES_END\n",
                       "t.filt:1: found 'SCOREP_REGION_NAMES_END', expected "
                       "SCOREP_FILE_NAMES_BEGIN or SCOREP_REGION_NAMES_BEGIN");
    ASSERT_PARSE_ERROR("SCOREP_FILE_NAMES_BEGIN\nSCOREP_FILE_NAMES_END\nSCOREP_FILE_NAMES_END\n",
                       "t.filt:3: found 'SCOREP_FILE_NAMES_END', expected "
                       "SCOREP_FILE_NAMES_BEGIN or SCOREP_REGION_NAMES_BEGIN");
    /* The other block's END does not close this block. */
    ASSERT_PARSE_ERROR("SCOREP_FILE_NAMES_BEGIN\n  EXCLUDE a.c\nSCOREP_REGION_NAMES_END\n",
                       "t.filt:3: found 'SCOREP_REGION_NAMES_END', expected a pattern, "
                       "INCLUDE, EXCLUDE or SCOREP_FILE_NAMES_END");
    return 0;
}

TEST(error_nested_begin)
{
    ASSERT_PARSE_ERROR("SCOREP_REGION_NAMES_BEGIN\nSCOREP_REGION_NAMES_BEGIN\n",
                       "t.filt:2: found 'SCOREP_REGION_NAMES_BEGIN', expected INCLUDE, "
                       "EXCLUDE or SCOREP_REGION_NAMES_END");
    ASSERT_PARSE_ERROR("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE a\n  SCOREP_FILE_NAMES_BEGIN\n",
                       "t.filt:3: found 'SCOREP_FILE_NAMES_BEGIN', expected a pattern, "
                       "INCLUDE, EXCLUDE, MANGLED, DEMANGLED or SCOREP_REGION_NAMES_END");
    ASSERT_PARSE_ERROR("SCOREP_FILE_NAMES_BEGIN\n\n\nSCOREP_REGION_NAMES_BEGIN\n",
                       "t.filt:4: found 'SCOREP_REGION_NAMES_BEGIN', expected INCLUDE, "
                       "EXCLUDE or SCOREP_FILE_NAMES_END");
    return 0;
}

TEST(error_mangled_outside_rule)
{
    ASSERT_PARSE_ERROR("MANGLED\n",
                       "t.filt:1: found 'MANGLED', expected SCOREP_FILE_NAMES_BEGIN or "
                       "SCOREP_REGION_NAMES_BEGIN");
    ASSERT_PARSE_ERROR("SCOREP_REGION_NAMES_BEGIN\n  MANGLED _Z1av\n",
                       "t.filt:2: found 'MANGLED', expected INCLUDE, EXCLUDE or "
                       "SCOREP_REGION_NAMES_END");
    ASSERT_PARSE_ERROR("SCOREP_REGION_NAMES_BEGIN\n\n  DEMANGLED a\n",
                       "t.filt:3: found 'DEMANGLED', expected INCLUDE, EXCLUDE or "
                       "SCOREP_REGION_NAMES_END");
    /* File names have no mangled form. */
    ASSERT_PARSE_ERROR("SCOREP_FILE_NAMES_BEGIN\n  EXCLUDE MANGLED a.c\n",
                       "t.filt:2: found 'MANGLED', expected a pattern, INCLUDE, EXCLUDE or "
                       "SCOREP_FILE_NAMES_END");
    return 0;
}

TEST(error_backslash_before_line_break)
{
    ASSERT_PARSE_ERROR("SCOREP_REGION_NAMES_BEGIN\n"
                       "  EXCLUDE foo\\\n"
                       "  bar\n"
                       "SCOREP_REGION_NAMES_END\n",
                       "t.filt:2: found '\\' at end of line, expected a character to "
                       "escape after it");
    ASSERT_PARSE_ERROR("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE foo \\\n",
                       "t.filt:2: found '\\' at end of line, expected a character to "
                       "escape after it");
    ASSERT_PARSE_ERROR("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE foo\\",
                       "t.filt:2: found '\\' at end of file, expected a character to "
                       "escape after it");
    /* Outside a block the backslash is reported before the word it belongs to. */
    ASSERT_PARSE_ERROR("\n\\\n",
                       "t.filt:2: found '\\' at end of line, expected a character to "
                       "escape after it");
    return 0;
}

TEST(error_message_buffer_handling)
{
    /* No buffer: still fails cleanly. */
    ASSERT(hp_filter_parse("foo", "t.filt", NULL, 0) == NULL);
    /* A short buffer gets a truncated, terminated message. */
    char small[8];
    memset(small, 'x', sizeof small);
    ASSERT(hp_filter_parse("foo", "t.filt", small, sizeof small) == NULL);
    ASSERT_STR_EQ(small, "t.filt:");
    /* The origin names the text in messages. */
    char err[256];
    ASSERT(hp_filter_parse("\n\nfoo", "my/app.filt", err, sizeof err) == NULL);
    ASSERT_STR_CONTAINS(err, "my/app.filt:3: found 'foo', expected");
    return 0;
}

/* Writes length bytes of text to a new temporary file; returns its malloc'ed name or
 * NULL. */
static char *write_temp_bytes(const char *text, size_t length)
{
    const char *dir = getenv("TMPDIR");
    char *name = malloc(4096);
    if (name == NULL)
        return NULL;
    snprintf(name, 4096, "%s/test-filter-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(name);
    if (fd < 0) {
        free(name);
        return NULL;
    }
    bool ok = write(fd, text, length) == (ssize_t)length;
    ok = close(fd) == 0 && ok;
    if (!ok) {
        unlink(name);
        free(name);
        return NULL;
    }
    return name;
}

static char *write_temp_file(const char *text)
{
    return write_temp_bytes(text, strlen(text));
}

TEST(load_from_file)
{
    char *name = write_temp_file(format_example);
    ASSERT(name != NULL);
    char err[512] = "unchanged";
    hp_filter *f = hp_filter_load(name, err, sizeof err);
    unlink(name);
    free(name);
    if (f == NULL)
        HP_TEST_FAIL("load failed: %s", err);
    ASSERT_STR_EQ(err, "");
    int rc = check_format_example(f);
    hp_filter_free(f);
    return rc;
}

TEST(load_empty_file)
{
    char *name = write_temp_file("");
    ASSERT(name != NULL);
    char err[512];
    hp_filter *f = hp_filter_load(name, err, sizeof err);
    unlink(name);
    free(name);
    ASSERT(f != NULL);
    ASSERT(hp_filter_is_empty(f));
    INCLUDED(f, "/a.c", "main", NULL);
    hp_filter_free(f);
    return 0;
}

TEST(load_error_names_the_file)
{
    char *name = write_temp_file("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE a\n  SCOREP_FILE_NAMES_END\n");
    ASSERT(name != NULL);
    char err[512], expected[4200];
    hp_filter *f = hp_filter_load(name, err, sizeof err);
    snprintf(expected, sizeof expected,
             "%s:3: found 'SCOREP_FILE_NAMES_END', expected a pattern, INCLUDE, EXCLUDE, "
             "MANGLED, DEMANGLED or SCOREP_REGION_NAMES_END",
             name);
    unlink(name);
    free(name);
    ASSERT(f == NULL);
    ASSERT_STR_EQ(err, expected);
    return 0;
}

/* Loads length bytes of text from a file; returns the message with the file's name
 * replaced by "F" (into err), or "loaded". */
static const char *load_message(const char *text, size_t length, char *err, size_t errlen)
{
    char *name = write_temp_bytes(text, length), raw[512];
    if (name == NULL)
        return "cannot write a temporary file";
    hp_filter *f = hp_filter_load(name, raw, sizeof raw);
    size_t n = strlen(name);
    snprintf(err, errlen, "%s", f != NULL ? "loaded"
                                          : strncmp(raw, name, n) == 0 ? raw + n - 1 : raw);
    if (f == NULL && strncmp(raw, name, n) == 0)
        err[0] = 'F';
    hp_filter_free(f);
    unlink(name);
    free(name);
    return err;
}

/* A NUL byte would end the text early: it is named where it is, not "end of file". */
TEST(load_nul_byte_named_by_line_and_column)
{
    char err[512];
    static const char text[] = "SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE fo\0o\n"
                               "SCOREP_REGION_NAMES_END\n";
    ASSERT_STR_EQ(load_message(text, sizeof text - 1, err, sizeof err),
                  "F:2:13: found a NUL byte, expected text (a filter file is a text file)");
    ASSERT_STR_EQ(load_message("\0", 1, err, sizeof err),
                  "F:1:1: found a NUL byte, expected text (a filter file is a text file)");
    return 0;
}

/* What is echoed from the file cannot drive the terminal: control characters, C1
 * controls and bytes that are not UTF-8 are escaped; valid UTF-8 is kept; a long word is
 * cut. */
TEST(load_error_escapes_the_echoed_word)
{
    char err[512];
    const char *text = "SCOREP_REGION_NAMES_BEGIN\n \033[2J\033]0;x\007\x9b\xc2\x85\xc3\xa9"
                       "\x7f\nSCOREP_REGION_NAMES_END\n";
    ASSERT_STR_EQ(load_message(text, strlen(text), err, sizeof err),
                  "F:2: found '\\x1b[2J\\x1b]0;x\\x07\\x9b\\xc2\\x85\xc3\xa9\\x7f', "
                  "expected INCLUDE, EXCLUDE or SCOREP_REGION_NAMES_END");
    char long_word[400];
    memset(long_word, 'a', sizeof long_word);
    long_word[sizeof long_word - 1] = '\n';
    ASSERT_STR_EQ(load_message(long_word, sizeof long_word, err, sizeof err),
                  "F:1: found 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                  "aaaaaaaaaaaaaaaaaaaaaaaaaaaa...', expected SCOREP_FILE_NAMES_BEGIN or "
                  "SCOREP_REGION_NAMES_BEGIN");
    return 0;
}

TEST(load_unreadable_file)
{
    char err[512];
    ASSERT(hp_filter_load("/nonexistent-dir/app.filt", err, sizeof err) == NULL);
    ASSERT_STR_EQ(err, "/nonexistent-dir/app.filt: cannot read: No such file or directory");
    ASSERT(hp_filter_load("/", err, sizeof err) == NULL);
    ASSERT_STR_EQ(err, "/: cannot read: Is a directory");
    return 0;
}

/* Many threads matching with one filter must all get the single-threaded answers. */
struct match_job {
    const hp_filter *filter;
    int wrong;
};

static void *match_many(void *arg)
{
    struct match_job *job = arg;
    for (int i = 0; i < 20000; i++) {
        job->wrong += hp_filter_excludes(job->filter, "/x/third_party/./blas.c", "main", NULL) != true;
        job->wrong += hp_filter_excludes(job->filter, "/x/app//main.c", "solve_cg", NULL) != false;
        job->wrong += hp_filter_excludes(job->filter, NULL, "helper", "_Z6helperv") != true;
        job->wrong += hp_filter_excludes(job->filter, NULL, "step", "_ZN3sim9Particles4stepEv") != false;
    }
    return NULL;
}

TEST(concurrent_matching)
{
    PARSE(f, format_example);
    enum { THREADS = 4 };
    pthread_t threads[THREADS];
    struct match_job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (struct match_job){ .filter = f, .wrong = 0 };
        ASSERT_INT_EQ(pthread_create(&threads[i], NULL, match_many, &jobs[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        ASSERT_INT_EQ(pthread_join(threads[i], NULL), 0);
        ASSERT_INT_EQ(jobs[i].wrong, 0);
    }
    hp_filter_free(f);
    return 0;
}

HP_TEST_LIST(TEST_ENTRY(format_example_verbatim), TEST_ENTRY(empty_filters_nothing),
             TEST_ENTRY(null_filter_excludes_nothing), TEST_ENTRY(is_empty_only_without_patterns),
             TEST_ENTRY(blocks_in_any_order_and_optional),
             TEST_ENTRY(repeated_block_continues_rules), TEST_ENTRY(keywords_are_case_sensitive),
             TEST_ENTRY(rule_continues_until_next_keyword), TEST_ENTRY(last_matching_rule_wins),
             TEST_ENTRY(everything_starts_included), TEST_ENTRY(wildcards),
             TEST_ENTRY(mangled_demangled_switching), TEST_ENTRY(each_rule_starts_demangled),
             TEST_ENTRY(file_block_applies_first), TEST_ENTRY(file_names_are_normalised),
             TEST_ENTRY(normalize_path_cases), TEST_ENTRY(very_long_file_name_still_matches),
             TEST_ENTRY(escapes_and_comments), TEST_ENTRY(crlf_line_ends),
             TEST_ENTRY(error_word_outside_block), TEST_ENTRY(error_pattern_before_rule),
             TEST_ENTRY(error_unterminated_block), TEST_ENTRY(error_end_without_begin),
             TEST_ENTRY(error_nested_begin), TEST_ENTRY(error_mangled_outside_rule),
             TEST_ENTRY(error_backslash_before_line_break),
             TEST_ENTRY(error_message_buffer_handling), TEST_ENTRY(load_from_file),
             TEST_ENTRY(load_empty_file), TEST_ENTRY(load_error_names_the_file),
             TEST_ENTRY(load_unreadable_file), TEST_ENTRY(load_nul_byte_named_by_line_and_column),
             TEST_ENTRY(load_error_escapes_the_echoed_word), TEST_ENTRY(concurrent_matching));
