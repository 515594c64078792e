/*
 * quarry/base.h: the lowest layer. Error codes, a capped arena allocator, a growable
 * byte buffer, hashing, checked size arithmetic and UTF-8 helpers.
 *
 * Ownership: an arena owns every block it hands out; blocks are never freed one by one,
 * only all at once (qr_arena_release) or back to a mark (qr_arena_rewind). A qr_buf owns
 * its bytes (malloc) until qr_buf_release or qr_buf_detach.
 */
#ifndef QUARRY_BASE_H
#define QUARRY_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The one place the version is written (CLI, index metadata, MCP serverInfo). */
#define QR_VERSION "0.1.0"

/* Error codes: functions return 0 on success or one of these (negative). */
enum {
    QR_OK = 0,
    QR_ENOMEM = -1,   /* allocation failed or the arena cap was reached */
    QR_EINVAL = -2,   /* bad input: parse error, bad argument, bad usage */
    QR_ERUNTIME = -3, /* a program ran and failed (type, arity, tool, limit errors) */
    QR_EIO = -4,      /* a file or stream could not be read or written */
    QR_ELIMIT = -5,   /* a sandbox limit was reached */
    QR_ESTOPPED = -6, /* the work was stopped: cancelled, or its deadline passed (qr_stop) */
};

/* ---- checked size arithmetic: return false on overflow ---- */
static inline bool qr_size_add(size_t a, size_t b, size_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}
static inline bool qr_size_mul(size_t a, size_t b, size_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

/* ---- arena ----
 * A chain of chunks. `cap` bounds the total bytes handed out (0 means unbounded); once
 * the cap is reached every allocation fails and `exhausted` stays set (sticky, as in
 * SQLite's out-of-memory flag) until the arena is rewound below the cap. */
typedef struct qr_arena_chunk qr_arena_chunk;
typedef struct qr_arena {
    qr_arena_chunk *head; /* newest chunk */
    size_t used;          /* bytes handed out, counted against cap */
    size_t cap;           /* 0 = no cap */
    bool exhausted;       /* sticky: an allocation was refused */
    bool too_deep;        /* sticky: a value would nest deeper than QR_MAX_DEPTH */
    /* Called when an allocation is refused (code QR_ENOMEM) or a value would nest too
     * deep (QR_ELIMIT), before the constructor gives up. The Lisp sets it to unwind the
     * evaluation; other users leave it NULL and check the sticky flags. */
    void (*on_fail)(void *ud, int code);
    void *ud;
    /* Fault injection for tests (SQLite's and Lua's way of reaching every out-of-memory
     * path): when nonzero, each allocation counts it down and the one that brings it to 0
     * is refused as if the cap were reached. 0 (the default) never refuses. */
    uint64_t fail_countdown;
} qr_arena;

typedef struct qr_arena_mark {
    qr_arena_chunk *head;
    size_t head_used;
    size_t used;
} qr_arena_mark;

void qr_arena_init(qr_arena *a, size_t cap);
/* Returns NULL (and sets a->exhausted) when the cap would be exceeded or malloc fails.
 * Memory is 16-byte aligned and not zeroed. */
void *qr_arena_alloc(qr_arena *a, size_t n);
void *qr_arena_zalloc(qr_arena *a, size_t n);
/* Grows the block most recently returned by qr_arena_alloc in place when it is the last
 * one in its chunk, else allocates and copies. NULL on failure (old block intact). */
void *qr_arena_realloc(qr_arena *a, void *p, size_t old_n, size_t new_n);
char *qr_arena_strndup(qr_arena *a, const char *s, size_t n);
qr_arena_mark qr_arena_get_mark(const qr_arena *a);
/* Frees every chunk allocated after the mark; blocks handed out before it stay valid. */
void qr_arena_rewind(qr_arena *a, qr_arena_mark m);
void qr_arena_release(qr_arena *a);
/* Sets the sticky flag for code and calls on_fail. */
void qr_arena_fail(qr_arena *a, int code);

/* ---- buffer (malloc-owned, for output that outlives an arena) ---- */
typedef struct qr_buf {
    char *p; /* NUL-terminated when non-NULL */
    size_t len;
    size_t cap;
    bool failed; /* sticky: an append could not allocate */
    bool fixed;  /* p is the caller's (qr_buf_init_fixed): never reallocated nor freed */
} qr_buf;

void qr_buf_init(qr_buf *b);
/* A buffer over the caller's cap bytes at p (an arena block, say): appends fill it, and
 * one that would pass cap - 1 bytes (the NUL needs one) sets `failed` instead of growing.
 * qr_buf_release forgets p without freeing it. */
void qr_buf_init_fixed(qr_buf *b, char *p, size_t cap);
void qr_buf_append(qr_buf *b, const char *s, size_t n);
void qr_buf_puts(qr_buf *b, const char *s);
void qr_buf_putc(qr_buf *b, char c);
void qr_buf_printf(qr_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void qr_buf_vprintf(qr_buf *b, const char *fmt, va_list ap);
/* Appends s as a JSON string literal (quotes included). */
void qr_buf_json_string(qr_buf *b, const char *s, size_t n);
void qr_buf_reset(qr_buf *b);
/* Transfers ownership of the bytes to the caller (free with free()). */
char *qr_buf_detach(qr_buf *b, size_t *len);
void qr_buf_release(qr_buf *b);

/* ---- hashing ---- */
/* Deterministic across processes: for anything written to a file or compared between
 * runs (checksums, fingerprints, index keys). */
uint64_t qr_hash_bytes(const void *p, size_t n);
/* Seeded at random once per process: for in-memory tables whose keys untrusted input
 * chooses (map keys, interned keywords), so that no input can be crafted in advance to
 * make them collide. Never store it. */
uint64_t qr_hash_text(const void *p, size_t n);
uint64_t qr_hash_mix(uint64_t h);
static inline uint64_t qr_hash_combine(uint64_t seed, uint64_t h)
{
    return qr_hash_mix(seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)));
}

/* ---- UTF-8 ---- */
/* Decodes one code point at s[0..n). Returns bytes consumed (1..4) and sets *cp; on an
 * invalid sequence returns 1 and sets *cp to 0xFFFD. n must be > 0. */
size_t qr_utf8_decode(const char *s, size_t n, uint32_t *cp);
/* Encodes cp into out (at least 4 bytes); returns the length. */
size_t qr_utf8_encode(uint32_t cp, char *out);
bool qr_utf8_valid(const char *s, size_t n);
/* Number of code points (invalid bytes count one each). */
size_t qr_utf8_count(const char *s, size_t n);
/* A byte quoted in an error message: itself when printable ASCII, else "\xNN", so a
 * message stays valid UTF-8 whatever the input held. Returns buf (8 bytes). */
const char *qr_char_shown(int c, char buf[8]);
/* Makes the NUL-terminated message s (in a buffer of cap bytes, at most 1024 used) valid
 * UTF-8 on one line: invalid and control bytes become "\xNN", and a cut falls between
 * characters. For messages that quote untrusted input. */
void qr_utf8_clean(char *s, size_t cap);
/* Byte offset of code point index i, or n when i is at or past the end. */
size_t qr_utf8_offset(const char *s, size_t n, size_t i);
/* Terminal columns a code point takes: 0 for combining marks, other zero-width and
 * control characters, 2 for East Asian wide and fullwidth characters and emoji, else 1
 * (src/base/width.c: tables from the Unicode data, not the C library's locale). */
int qr_cp_width(uint32_t cp);
/* Terminal columns of s[0..n) (invalid bytes count one each, as U+FFFD). */
size_t qr_utf8_width(const char *s, size_t n);

/* ---- "did you mean" ---- */
/* Longest string qr_edit_distance compares; longer ones are never a typo of anything. */
#define QR_EDIT_MAX 64
enum {
    QR_EDIT_FOLD = 1,      /* ASCII case ignored, '-' and '_' equal */
    QR_EDIT_TRANSPOSE = 2, /* swapping two neighbours is one edit (optimal string alignment) */
};
/* Edits (insert, delete, substitute, and with QR_EDIT_TRANSPOSE swap) between a[0..an)
 * and b[0..bn); SIZE_MAX when either is longer than QR_EDIT_MAX. Callers decide how many
 * edits still make a typo. */
size_t qr_edit_distance(const char *a, size_t an, const char *b, size_t bn, int flags);

/* ---- stopping long work (src/base/stop.c) ----
 * A request to stop, shared between the code that runs long work (a history walk, a
 * program's tools) and whoever may want it stopped: another thread that sets `requested`
 * (an MCP cancellation), or the deadline of the program the work runs for (time inside a
 * tool counts against the program's limit). Loops whose cost is not bounded by their
 * input call qr_stop_check now and then (every few hundred items: it reads the clock only
 * when a deadline is set) and return QR_ESTOPPED when it says so, with
 * qr_stop_describe's message. A NULL qr_stop never stops. */
typedef struct qr_stop {
    _Atomic int requested; /* nonzero: stop (set from any thread) */
    uint64_t deadline_ns;  /* qr_clock_ns() after which to stop; 0: none */
    uint64_t limit_ms;     /* the limit the deadline came from, for the message */
} qr_stop;
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t qr_clock_ns(void);
/* Clears s and, when timeout_ms is not 0, sets its deadline that far from now. */
void qr_stop_init(qr_stop *s, uint64_t timeout_ms);
/* Sets (timeout_ms 0: removes) the deadline of s, keeping a request to stop. Only the
 * thread doing the work may call it. */
void qr_stop_set_deadline(qr_stop *s, uint64_t timeout_ms);
/* Asks the work to stop (safe from any thread and from a signal handler). */
void qr_stop_request(qr_stop *s);
/* True when the work should stop (requested, or past the deadline). s may be NULL. */
bool qr_stop_check(const qr_stop *s);
/* Appends why the work stopped: "cancelled" or "time limit of N ms
 * reached". */
void qr_stop_describe(const qr_stop *s, qr_buf *b);
/* The one line work writes when it stops: appends "stopped: " and qr_stop_describe's
 * phrase, and returns QR_ESTOPPED. */
int qr_stop_fail(const qr_stop *s, qr_buf *err);

/* ---- files ---- */
/* Reads a whole file (or stdin when path is "-") into a malloc'd NUL-terminated buffer.
 * Returns QR_OK, QR_EIO (errno preserved) or QR_ENOMEM. max bounds the size (0 = none;
 * a larger file yields QR_EINVAL). */
int qr_read_file(const char *path, size_t max, char **out, size_t *len);
/* Reads a settings file (configuration, agent, template) only when path itself names a
 * regular file: opened with O_NOFOLLOW|O_NONBLOCK (a symbolic link as the last component
 * is refused, a FIFO or device never blocks the open), then fstat must say regular file.
 * Returns QR_OK; QR_EIO with errno ENOENT or ENOTDIR (missing), ELOOP (a symbolic link),
 * ENXIO (not a regular file) or another read error, and *why (when not NULL) a short
 * phrase for the message ("is a symbolic link, which is not followed", "is not a regular
 * file", or strerror); QR_EINVAL when larger than max (0: no bound); QR_ENOMEM. Callers
 * quote the path and *why, never the file's bytes. */
int qr_read_regular_file(const char *path, size_t max, char **out, size_t *len,
                         const char **why);
/* Reads fd to its end (EINTR retried; fd stays open) into a malloc'd NUL-terminated buffer
 * (*len bytes; "" when empty). max bounds the size (0: none). Returns QR_OK; QR_EIO (errno
 * kept), QR_EINVAL when larger than max, QR_ENOMEM. */
int qr_read_fd(int fd, size_t max, char **out, size_t *len);
/* Replaces path with data[0..n) whole: written to a fresh temporary file beside it
 * (mkstemp, permissions `mode`), then renamed over it, so readers see the old file or the
 * new one. Returns QR_OK, QR_EIO (errno preserved; nothing left behind) or QR_ENOMEM. */
int qr_write_file_atomic(const char *path, const void *data, size_t n, unsigned mode);
/* Writes p[0..n) to fd whole, retrying short writes and EINTR. On a socket it sends with
 * MSG_NOSIGNAL, so a peer that went away is an error (EPIPE), not SIGPIPE. QR_OK or
 * QR_EIO (errno preserved). */
int qr_write_all(int fd, const void *p, size_t n);
/* What stat(2) says of a file, as text: device, inode, size, and the modification and
 * change times to the nanosecond; "-" when the file is missing or empty (SQLite leaves an
 * empty WAL behind). The change time (ctime) is set by the kernel at every write, rename
 * or utimensat and cannot be set back by a program, so two equal stamps mean the file
 * was not touched in between (up to the file system's clock tick). */
#define QR_FILE_STAMP_LEN 128
void qr_file_stamp(const char *path, char out[QR_FILE_STAMP_LEN]);
/* quarry's private state directory, $XDG_STATE_HOME/quarry (else
 * $HOME/.local/state/quarry), and `sub` inside it when not NULL, created mode 0700 when
 * missing. QR_OK with the path in out; QR_EIO when there is no home or it cannot be
 * made; QR_ENOMEM. */
int qr_state_dir(const char *sub, qr_buf *out);
/* A repository's name as its directory says it, appended to out: the working tree's last
 * component, or for a bare git directory (bare true) its last component less ".git"
 * ("/srv/redis.git" -> "redis"); "repository" when the directory names none ("/"). */
void qr_repo_dir_name(const char *dir, bool bare, qr_buf *out);

#endif
