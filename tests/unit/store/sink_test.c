/* sink_test.c: the store's sink (src/store/sink.h) writes the same bytes,
 * digests and diagnostics on its own thread as inline, in the order it was
 * asked (records ended or not before the next begins), and the bound on its
 * queue never stalls a payload larger than the bound. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "read/reader.h"
#include "store/sink.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fsutil.h"
#include "util/html.h"

/* md5("hello") and md5("hello world"), from md5sum. */
#define MD5_HELLO "5d41402abc4b2a76b9719d911017c592"
#define MD5_HELLO_WORLD "5eb63bbbe01eeed093cb22bb8f5acdc3"

enum { BIG = (8 << 20) + 12345 }; /* larger than the queue's bound */

typedef struct sink_run {
  char dir[256];
  tl_diag diag;
  size_t tickets[10];
  char digests[10][33];
  bool ok;
  char error[512];
} sink_run;

static char *read_text(const char *dir, const char *name, size_t *len) {
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/%s", dir, name);
  char *text = tl_fs_read_all(path.data, len);
  tl_buf_free(&path);
  return text;
}

/* Drives one sink through every kind of step: records with and without
 * payloads and md5 checks (eight mismatches, more than the diag keeps), pages
 * handed over, copies, raw.log pieces and one payload larger than the bound. */
static void drive(sink_run *run, const char *root, bool background) {
  char error[512];
  snprintf(run->dir, sizeof run->dir, "%s/%s", root,
           background ? "background" : "inline");
  CHECK(tl_fs_mkdirs(run->dir, error, sizeof error));
  tl_buf path;
  tl_buf_init(&path);
  tl_buf_printf(&path, "%s/raw.jsonl", run->dir);
  FILE *jsonl = fopen(path.data, "wb");
  tl_buf_clear(&path);
  tl_buf_printf(&path, "%s/raw.log", run->dir);
  FILE *log = fopen(path.data, "wb");
  tl_buf_free(&path);
  CHECK(jsonl && log);
  tl_diag_init(&run->diag, "trace.log");
  tl_sink *sink = tl_sink_start(run->dir, jsonl, log, &run->diag, background);

  char *big = tl_xmalloc(BIG);
  for (size_t i = 0; i < BIG; i++)
    big[i] = (char)('a' + i % 23);
  big[100] = '"';
  big[200] = '\n';

  const char *env = "{\"artifact\": {\"name\": \"x\"}, \"has_payload\": \"h\"}";
  run->tickets[0] =
      tl_sink_record(sink, 1, tl_str_from(env), tl_str_from("hello"),
                     "artifact", MD5_HELLO, true);
  tl_sink_write_payload(sink, "a_0.txt");
  tl_sink_write_escaped_payload(sink, "a_0.html", tl_str_from("<b>"),
                                tl_str_from("</b>"));
  tl_json_member added[] = {{"lineno", tl_str_from("12")},
                            {"payload_filename", tl_str_from("\"a_0.txt\"")}};
  tl_sink_raw_jsonl(sink, added, 2);
  tl_sink_record_end(sink); /* as the store ends each record */
  tl_sink_raw_log(sink, "first piece\n", 12);
  for (int k = 1; k <= 8; k++) { /* md5 mismatches */
    char name[32];
    snprintf(name, sizeof name, "m_%d.txt", k);
    run->tickets[k] = tl_sink_record(sink, (size_t)(10 * k), tl_str_from(env),
                                     tl_str_from("hello world"), "graph_dump",
                                     k == 8 ? NULL : MD5_HELLO, true);
    tl_sink_write_payload(sink, name);
    if (k % 2) /* ended, or left to the next record */
      tl_sink_record_end(sink);
  }
  CHECK_INT_EQ(tl_sink_record(sink, 90, tl_str_from("{\"str\": 1}"),
                              (tl_str){NULL, 0}, "str", NULL, false),
               TL_SINK_NO_TICKET);
  tl_sink_raw_jsonl(sink, NULL, 0);
  tl_buf page;
  tl_buf_init(&page);
  tl_buf_puts(&page, "<p>page</p>");
  tl_sink_write_buf(sink, "page_1.html", &page);
  CHECK_INT_EQ(page.len, 0);
  tl_sink_write(sink, "copy.txt", "copied", 6);
  run->tickets[9] = tl_sink_record(sink, 100, tl_str_from(env),
                                   (tl_str){big, BIG}, "artifact", "00", true);
  tl_sink_write_payload(sink, "big.txt");
  tl_sink_write_escaped_payload(sink, "big.html", tl_str_from("<pre>"),
                                tl_str_from("</pre>\n"));
  tl_sink_record_end(sink); /* a large record: waits until it is let go */
  /* So its last file is whole already, before the sink is finished (the
   * queue's bound alone lets this run on while the page is escaped). */
  size_t written = 0;
  char *now = read_text(run->dir, "big.html", &written);
  CHECK(now && written > BIG && memcmp(now + written - 7, "</pre>\n", 7) == 0);
  free(now);
  tl_sink_raw_log(sink, big, BIG);
  run->ok = tl_sink_finish(sink, run->error, sizeof run->error);
  for (int k = 0; k < 10; k++)
    snprintf(run->digests[k], sizeof run->digests[k], "%s",
             tl_sink_digest(sink, run->tickets[k]));
  tl_sink_free(sink);
  fclose(jsonl);
  fclose(log);
  tl_buf_free(&page);

  /* The bytes of the big payload, as both files must hold them. */
  size_t len = 0;
  char *text = read_text(run->dir, "big.txt", &len);
  CHECK(text && len == BIG && memcmp(text, big, BIG) == 0);
  free(text);
  /* Its page: the payload escaped between the two texts, written a
   * megabyte at a time. */
  tl_buf expected;
  tl_buf_init(&expected);
  tl_buf_puts(&expected, "<pre>");
  tl_html_escape(&expected, (tl_str){big, BIG});
  tl_buf_puts(&expected, "</pre>\n");
  text = read_text(run->dir, "big.html", &len);
  CHECK(text && len == expected.len && memcmp(text, expected.data, len) == 0);
  CHECK(expected.len > BIG); /* the quote became &quot; */
  free(text);
  tl_buf_free(&expected);
  text = read_text(run->dir, "a_0.html", &len);
  CHECK_STR_EQ(text ? text : "", "<b>hello</b>");
  free(text);
  text = read_text(run->dir, "raw.log", &len);
  CHECK(text && len == 12 + BIG && memcmp(text, "first piece\n", 12) == 0 &&
        memcmp(text + 12, big, BIG) == 0);
  free(text);
  free(big);
}

static void check_same_file(const char *a_dir, const char *b_dir,
                            const char *name) {
  size_t a_len = 0, b_len = 0;
  char *a = read_text(a_dir, name, &a_len);
  char *b = read_text(b_dir, name, &b_len);
  CHECK(a && b);
  if (a && b) {
    CHECK_INT_EQ(a_len, b_len);
    CHECK(a_len == b_len && memcmp(a, b, a_len) == 0);
  }
  free(a);
  free(b);
}

TEST(sink_on_its_thread_writes_what_it_writes_inline) {
  char root[] = "/tmp/tlparse-sink-XXXXXX";
  CHECK(mkdtemp(root) != NULL);
  sink_run in, bg;
  drive(&in, root, false);
  drive(&bg, root, true);
  CHECK(in.ok && bg.ok);

  const char *files[] = {"raw.jsonl", "raw.log", "a_0.txt",     "a_0.html",
                         "m_1.txt",   "m_8.txt", "page_1.html", "copy.txt",
                         "big.txt",   "big.html"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++)
    check_same_file(in.dir, bg.dir, files[i]);

  /* Tickets count the md5 checks; digests are the payloads' md5s. */
  for (int k = 0; k < 10; k++)
    CHECK_INT_EQ(bg.tickets[k], k);
  CHECK_STR_EQ(bg.digests[0], MD5_HELLO);
  CHECK_STR_EQ(bg.digests[1], MD5_HELLO_WORLD);
  CHECK_STR_EQ(bg.digests[8], MD5_HELLO_WORLD);
  for (int k = 0; k < 10; k++)
    CHECK_STR_EQ(bg.digests[k], in.digests[k]);

  /* Nine mismatches (eight, then the big payload's); the first five kept,
   * in the order they happened, in both modes. */
  CHECK_INT_EQ(in.diag.counts[TL_DIAG_MD5], 9);
  CHECK_INT_EQ(bg.diag.counts[TL_DIAG_MD5], 9);
  CHECK_INT_EQ(bg.diag.counts[TL_DIAG_OUTPUT], 0);
  CHECK_STR_EQ(bg.diag.examples[TL_DIAG_MD5][0].message,
               "payload md5 " MD5_HELLO_WORLD
               " does not match has_payload " MD5_HELLO
               " in \"graph_dump\" entry (payload kept)");
  for (int i = 0; i < TL_DIAG_EXAMPLES; i++) {
    CHECK_INT_EQ(bg.diag.examples[TL_DIAG_MD5][i].line, 10 * (i + 1));
    CHECK_STR_EQ(bg.diag.examples[TL_DIAG_MD5][i].message,
                 in.diag.examples[TL_DIAG_MD5][i].message);
  }

  /* raw.jsonl: the lines asked for, each the envelope of the record begun
   * last, compact with its keys sorted and the members added. */
  size_t len = 0;
  char *jsonl = read_text(bg.dir, "raw.jsonl", &len);
  CHECK_STR_EQ(jsonl ? jsonl : "",
               "{\"artifact\":{\"name\":\"x\"},\"has_payload\":\"h\","
               "\"lineno\":12,\"payload_filename\":\"a_0.txt\"}\n"
               "{\"str\":1}\n");
  free(jsonl);

  tl_diag_free(&in.diag);
  tl_diag_free(&bg.diag);
  char error[512];
  CHECK(tl_fs_remove_tree(root, error, sizeof error));
}

TEST(sink_takes_a_large_payload_instead_of_copying_it) {
  /* On the sink's thread, from TL_SINK_TAKE_AT bytes on, a payload that is
   * its owner's whole text is taken (the owner left without memory), checked
   * and written from there; a smaller one, or one that is only part of its
   * owner, is copied and the owner keeps it. Inline, nothing is taken or
   * copied: each step is done at once from the owner's text. */
  for (int background = 0; background < 2; background++) {
    char root[] = "/tmp/tlparse-sink-XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    tl_diag diag;
    tl_diag_init(&diag, "trace.log");
    tl_sink *sink = tl_sink_start(root, NULL, NULL, &diag, background);
    tl_buf large, small, part;
    tl_buf_init(&large);
    tl_buf_init(&small);
    tl_buf_init(&part);
    for (size_t i = 0; large.len < TL_SINK_TAKE_AT; i++)
      tl_buf_printf(&large, "line %zu\n", i);
    tl_buf_puts(&small, "hello");
    tl_buf_append(&part, large.data, large.len);
    tl_buf_puts(&part, "tail");
    char *want = tl_xmalloc(large.len);
    size_t want_len = large.len;
    memcpy(want, large.data, large.len);
    size_t t1 =
        tl_sink_record_taking(sink, 1, tl_str_from("{}"), tl_buf_str(&large),
                              &large, "artifact", "00", true);
    if (background)
      CHECK(large.data == NULL); /* taken */
    else
      CHECK(large.data && large.len == want_len); /* borrowed */
    tl_sink_write_payload(sink, "large.txt");
    size_t t2 =
        tl_sink_record_taking(sink, 2, tl_str_from("{}"), tl_buf_str(&small),
                              &small, "artifact", MD5_HELLO, true);
    CHECK(small.data && strcmp(small.data, "hello") == 0);
    tl_sink_write_payload(sink, "small.txt");
    tl_sink_record_taking(sink, 3, tl_str_from("{}"),
                          (tl_str){part.data, want_len}, &part, "artifact",
                          NULL, false);
    CHECK(part.data != NULL && part.len == want_len + 4); /* copied */
    tl_sink_write_payload(sink, "part.txt");
    char error[512] = "";
    CHECK(tl_sink_finish(sink, error, sizeof error));
    CHECK_INT_EQ(diag.counts[TL_DIAG_MD5], 1); /* "00" for the large one */
    CHECK_INT_EQ(strlen(tl_sink_digest(sink, t1)), 32);
    CHECK_STR_EQ(tl_sink_digest(sink, t2), MD5_HELLO);
    tl_sink_free(sink);
    static const char *const names[] = {"large.txt", "part.txt"};
    for (int k = 0; k < 2; k++) {
      size_t len = 0;
      char *text = read_text(root, names[k], &len);
      CHECK(text && len == want_len && memcmp(text, want, len) == 0);
      free(text);
    }
    size_t len = 0;
    char *text = read_text(root, "small.txt", &len);
    CHECK(text && len == 5 && memcmp(text, "hello", 5) == 0);
    free(text);
    free(want);
    tl_buf_free(&large);
    tl_buf_free(&small);
    tl_buf_free(&part);
    tl_diag_free(&diag);
    CHECK(tl_fs_remove_tree(root, error, sizeof error));
  }
}

/* What the reader gave each record, the first record's buffer taken. */
typedef struct taking {
  char payloads[4][64];
  size_t lens[4];
  bool present[4];
  int count;
  char *taken;
} taking;

static void take_first(void *ctx, const tl_record *rec) {
  taking *t = ctx;
  int i = t->count++;
  if (i >= 4)
    return;
  t->present[i] = rec->payload.ptr != NULL;
  t->lens[i] = rec->payload.len;
  snprintf(t->payloads[i], sizeof t->payloads[i], "%.*s",
           (int)(rec->payload.len < 60 ? rec->payload.len : 60),
           rec->payload.ptr ? rec->payload.ptr : "");
  if (i == 0 && rec->payload_buf) {
    CHECK(rec->payload_buf->data == rec->payload.ptr);
    t->taken = tl_buf_detach(rec->payload_buf);
  }
}

TEST(reader_starts_a_new_payload_after_one_was_taken) {
  /* A one-line payload (its line becomes the payload), taken by the
   * callback; then an entry with has_payload and no lines (an empty
   * payload, not the taken one), a two-line payload and a blank-led one. */
  char dir[] = "/tmp/tlparse-reader-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[600];
  snprintf(path, sizeof path, "%s/trace.log", dir);
  FILE *f = fopen(path, "wb");
  const char *glog = "V1125 05:52:40.722000 6296 x.py:1] ";
  if (f) {
    fprintf(f,
            "%s{\"artifact\": {\"name\": \"a\"}, \"has_payload\": "
            "\"x\"}\n\t{\"k\": 1}\n",
            glog);
    fprintf(f, "%s{\"artifact\": {\"name\": \"b\"}, \"has_payload\": \"x\"}\n",
            glog);
    fprintf(f,
            "%s{\"artifact\": {\"name\": \"c\"}, \"has_payload\": "
            "\"x\"}\n\tone\n\ttwo\n",
            glog);
    fprintf(f,
            "%s{\"artifact\": {\"name\": \"d\"}, \"has_payload\": "
            "\"x\"}\n\n\tafter\n",
            glog);
    fclose(f);
  }
  tl_diag diag;
  tl_diag_init(&diag, "trace.log");
  taking t;
  memset(&t, 0, sizeof t);
  char error[512] = "";
  CHECK(tl_reader_run(path, NULL, &diag, take_first, &t, error, sizeof error));
  CHECK_INT_EQ(t.count, 4);
  CHECK(t.taken && strcmp(t.taken, "{\"k\": 1}") == 0);
  CHECK_STR_EQ(t.payloads[0], "{\"k\": 1}");
  CHECK(t.present[1] && t.lens[1] == 0);
  CHECK_STR_EQ(t.payloads[2], "one\ntwo");
  CHECK_STR_EQ(t.payloads[3], "\nafter");
  free(t.taken);
  tl_diag_free(&diag);
  CHECK(tl_fs_remove_tree(dir, error, sizeof error));
}

TEST(sink_reports_the_first_file_it_cannot_write) {
  char root[] = "/tmp/tlparse-sink-XXXXXX";
  CHECK(mkdtemp(root) != NULL);
  tl_diag diag;
  tl_diag_init(&diag, "trace.log");
  tl_sink *sink = tl_sink_start(root, NULL, NULL, &diag, true);
  tl_sink_record(sink, 3, tl_str_from("{}"), tl_str_from("x"), "artifact", NULL,
                 false);
  tl_sink_write_payload(sink, "missing/a.txt");
  tl_sink_write(sink, "missing/b.txt", "y", 1);
  tl_sink_write(sink, "c.txt", "z", 1);
  char error[512] = "";
  CHECK(!tl_sink_finish(sink, error, sizeof error));
  tl_sink_free(sink);
  CHECK(strstr(error, "missing/a.txt") != NULL);
  CHECK_INT_EQ(diag.counts[TL_DIAG_OUTPUT], 2);
  CHECK(strstr(diag.examples[TL_DIAG_OUTPUT][1].message, "missing/b.txt"));
  size_t len = 0;
  char *c = read_text(root, "c.txt", &len);
  CHECK(c && len == 1 && c[0] == 'z');
  free(c);
  tl_diag_free(&diag);
  CHECK(tl_fs_remove_tree(root, error, sizeof error));
}

TEST(diag_merge_appends_examples_after_the_existing_ones) {
  tl_diag into, from;
  tl_diag_init(&into, "t");
  tl_diag_init(&from, "t");
  for (size_t i = 1; i <= 3; i++)
    tl_diag_add(&into, TL_DIAG_MD5, i, "into %zu", i);
  for (size_t i = 1; i <= 4; i++)
    tl_diag_add(&from, TL_DIAG_MD5, 100 + i, "from %zu", i);
  tl_diag_add(&from, TL_DIAG_OUTPUT, 0, "output");
  tl_diag_merge(&into, &from);
  CHECK_INT_EQ(into.counts[TL_DIAG_MD5], 7);
  CHECK_INT_EQ(into.counts[TL_DIAG_OUTPUT], 1);
  CHECK_STR_EQ(into.examples[TL_DIAG_MD5][2].message, "into 3");
  CHECK_STR_EQ(into.examples[TL_DIAG_MD5][3].message, "from 1");
  CHECK_STR_EQ(into.examples[TL_DIAG_MD5][4].message, "from 2");
  CHECK_INT_EQ(into.examples[TL_DIAG_MD5][4].line, 102);
  CHECK_STR_EQ(into.examples[TL_DIAG_OUTPUT][0].message, "output");
  tl_diag_free(&into);
  tl_diag_free(&from);
}

int main(void) {
  RUN(sink_on_its_thread_writes_what_it_writes_inline);
  RUN(sink_takes_a_large_payload_instead_of_copying_it);
  RUN(reader_starts_a_new_payload_after_one_was_taken);
  RUN(sink_reports_the_first_file_it_cannot_write);
  RUN(diag_merge_appends_examples_after_the_existing_ones);
  return check_summary();
}
