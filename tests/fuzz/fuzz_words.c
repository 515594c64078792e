/*
 * fuzz_words.c: libFuzzer harness for the plain-words reader (src/words): the normalizer
 * must give a NUL-terminated string no longer than its input and be idempotent on what it
 * gives back once chatter is gone from both ends; the typo measure must be symmetric and
 * zero on equal words; key=value, number and ordinal readers must stay in their ranges;
 * a lexicon built from the input's words must find each of them exactly.
 */
#include "quarry/words.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* checked in release builds too */
#define MUST(c)                                                                              \
    do {                                                                                     \
        if (!(c))                                                                            \
            abort();                                                                         \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    const char *s = (const char *)data;
    char out[4097];
    size_t n = qr_words_normalize(s, size, out, sizeof out);
    MUST(n <= size && out[n] == '\0' && strlen(out) <= n);
    char small[8];
    size_t m = qr_words_normalize(s, size, small, sizeof small);
    MUST(m < sizeof small && small[m] == '\0');

    qr_lex *lex = qr_lex_new();
    if (!lex)
        return 0;
    /* words of the input: split on spaces */
    const char *p = out;
    int id = 0;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t k = strcspn(p, " ");
        if (!k)
            break;
        if (k <= QR_WORDS_MAX) {
            size_t c1 = qr_words_cost(p, k, out, n < QR_WORDS_MAX ? n : QR_WORDS_MAX);
            size_t c2 = qr_words_cost(out, n < QR_WORDS_MAX ? n : QR_WORDS_MAX, p, k);
            MUST(c1 == c2);
            MUST(qr_words_cost(p, k, p, k) == 0);
            char w[QR_WORDS_MAX + 1];
            memcpy(w, p, k);
            w[k] = '\0';
            if (strlen(w) == k && qr_lex_add(lex, w, id++) == QR_OK) {
                qr_lex_hit h = qr_lex_find(lex, p, k);
                MUST(h.cost == 0 && (h.id >= 0 || h.id == QR_LEX_AMBIGUOUS));
            }
            char key[65], val[256];
            if (qr_words_kv(p, k, key, sizeof key, val, sizeof val))
                MUST(key[0] && val[0] && strlen(key) < sizeof key);
            long num = qr_words_number(p, k);
            MUST(num >= -1 && num <= 1000000);
            int ord = qr_words_ordinal(p, k);
            MUST(ord >= 0 && ord <= 100);
        }
        p += k;
    }
    qr_lex_free(lex);
    return 0;
}
