/*
 * libFuzzer target for the Cube4 reader and the report tables built on what it reads.
 * The first input byte picks the mode: odd = the rest is a whole .cubex file (the tar
 * layer and everything below); even = the rest is anchor.xml and member contents
 * separated by "\n--8<--\n", packed here into a valid tar as anchor.xml, 0.index,
 * 0.data, 1.index, ... so that mutations reach the XML and binary parsers instead of
 * dying on tar checksums. Build and run: fuzz/run-fuzz.sh (or `make fuzz`).
 */
#include <archive.h>
#include <archive_entry.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cube_reader.h"
#include "profile/summary.h"

static const char separator[] = "\n--8<--\n";

static void add_member(struct archive *a, const char *name, const uint8_t *p, size_t n)
{
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, name);
    archive_entry_set_size(e, (la_int64_t)n);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0600);
    archive_write_header(a, e);
    archive_write_data(a, p, n);
    archive_entry_free(e);
}

/* Packs the parts into a tar in a new buffer; returns its size, 0 on failure. */
static size_t pack(const uint8_t *data, size_t size, uint8_t **out)
{
    size_t cap = 2 * size + 64 * 1024, used = 0;
    *out = malloc(cap);
    struct archive *a = archive_write_new();
    archive_write_set_format_ustar(a);
    archive_write_set_bytes_in_last_block(a, 1);
    if (*out == NULL || archive_write_open_memory(a, *out, cap, &used) != ARCHIVE_OK) {
        archive_write_free(a);
        return 0;
    }
    const uint8_t *p = data, *end = data + size;
    for (int part = 0; p <= end && part < 64; part++) {
        const uint8_t *q = memmem(p, (size_t)(end - p), separator, sizeof(separator) - 1);
        size_t n = q ? (size_t)(q - p) : (size_t)(end - p);
        char name[32];
        if (part == 0)
            snprintf(name, sizeof(name), "anchor.xml");
        else
            snprintf(name, sizeof(name), "%d.%s", (part - 1) / 2, part % 2 ? "index" : "data");
        add_member(a, name, p, n);
        if (q == NULL)
            break;
        p = q + sizeof(separator) - 1;
    }
    archive_write_close(a);
    archive_write_free(a);
    return used;
}

static void report(const hp_profile *p)
{
    hp_report_options o;
    hp_report_options_init(&o);
    o.metric = p->nmetrics > 0 ? p->metrics[0].uniq_name : "time";
    hp_table_list tables = { NULL, 0 };
    char err[256];
    if (hp_report_tables(p, &o, &tables, err, sizeof(err)) == 0) {
        FILE *null = fopen("/dev/null", "w");
        for (size_t i = 0; null != NULL && i < tables.n; i++)
            hp_table_write_text(null, tables.tables[i]);
        if (null != NULL)
            fclose(null);
    }
    hp_table_list_release(&tables);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t *tar = NULL;
    size_t n = 0;
    const uint8_t *input = data + 1;
    if (data[0] & 1) {
        n = size - 1;
    } else {
        n = pack(data + 1, size - 1, &tar);
        input = tar;
    }
    hp_cube_profile cp;
    char err[512];
    if (input != NULL && hp_cube_read_memory("fuzz.cubex", input, n, &cp, err, sizeof(err)) == 0) {
        report(&cp.profile);
        hp_cube_profile_release(&cp);
    }
    free(tar);
    return 0;
}
