/*
 * codeframe.h (internal to src/agents): search_codebase's frame reader and the answers it
 * computes on the code graph itself. A question is read as a frame, not matched against
 * phrasings: a relation (callers, callees, includers, includes, definition, unused, list,
 * count, the structs with a field), a subject (a function, file, directory, macro or struct name) and filters
 * (static, in FILE or DIR, transitive). Which side of the verb the subject stands on says
 * the direction: "who calls X" / "X calls what", "what includes H" / "what does F
 * include"; a passive verb reverses it ("where is X called", "what is called by X").
 *
 * Ownership: a frame is plain data in the caller's storage. Errors: qr__codeframe_unused
 * returns QR_ENOMEM or QR_ESTOPPED; the reader cannot fail (it says CF_NONE).
 */
#ifndef QUARRY_AGENTS_CODEFRAME_H
#define QUARRY_AGENTS_CODEFRAME_H

#include "quarry/base.h"
#include "quarry/code.h"
#include "quarry/value.h"

#include <stdbool.h>

typedef enum cf_rel {
    CF_NONE = 0,
    CF_CALLERS,
    CF_CALLEES,
    CF_INCLUDERS,
    CF_INCLUDES,
    CF_DEFINITION,
    CF_UNUSED,
    CF_LIST,
    CF_COUNT,
    CF_FIELD, /* the structs with a member named subject */
    CF_MEMBERS, /* the members of the struct or union named subject */
    CF_RECURSIVE, /* the functions that call themselves (in f->in) */
    CF_LONGEST,   /* the longest functions, by lines (in f->in), f->limit of them */
    CF_MOST_INCLUDED, /* the headers most files include, f->limit of them */
} cf_rel;

typedef enum cf_what { CF_FUNCTIONS = 0, CF_STRUCTS, CF_MACROS } cf_what;

#define CF_MAX 200

typedef struct cf_frame {
    cf_rel rel;
    cf_what what;             /* CF_LIST / CF_COUNT / CF_UNUSED: what is listed */
    char subject[CF_MAX + 1]; /* the name or path the relation is about ("" for none) */
    bool subject_path;        /* the subject is a file or directory path */
    char in[CF_MAX + 1];      /* "in FILE" / "under DIR": where ("" for anywhere) */
    bool statics;             /* only static functions */
    bool nonstatic;           /* only functions other files can call ("public",
                                 "exported", "non-static") */
    bool direct;              /* "direct calls only", "directly": one step, not the chain */
    bool transitive;          /* "eventually", "indirectly": the whole chain */
    int depth;                /* "2 levels deep", "depth 3": the chain to that many steps (0:
                                 one step, or the whole chain when transitive) */
    bool inactive;            /* "including disabled code": code under a false #if too */
    bool headers;             /* CF_INCLUDERS: "which headers include H": only headers */
    bool sources;             /* CF_INCLUDERS: "which .c files include H": only sources */
    bool count;               /* CF_CALLERS / CF_INCLUDERS: "how many callers does X
                                 have", "how many files include H": one row {count} */
    bool kind_given;          /* "the struct X", "the macro X": f->what says which kind */
    bool typedefs;            /* CF_LIST with CF_STRUCTS: "the typedefs in F": the type
                                 names typedef gives, not the structs */
    bool pattern;             /* CF_LIST: subject is a name pattern, '*' any characters
                                 ("macros named like HT_*", "functions starting with ev_") */
    bool external;            /* CF_CALLEES: "including library calls": functions the
                                 repository does not define (memcpy) too */
    bool via;                 /* CF_CALLEES: "through macros", "expanded": the calls a macro
                                 body writes too, not only the calls written in the body */
    int limit;                /* CF_LONGEST / CF_MOST_INCLUDED: how many ("the 5 longest";
                                 0: ten) */
    char only[CF_MAX + 1];    /* CF_CALLERS / CF_CALLEES: only that function's rows ("does X
                                 call Y": X's callees named Y; "" for all) */
} cf_frame;

/* Reads question (already normalized) into f. `known` (may be NULL) says whether a word
 * is a name the code index holds; a word that is not, and is within the shared typo
 * measure of a frame word, is read as that word ("callrs"). False (f->rel CF_NONE) when
 * the words do not make one frame with all its slots: no relation, two subjects, a
 * relation that needs a subject and has none. */
bool qr__codeframe_read(const char *question, cf_frame *f, bool (*known)(void *ud, const char *w),
                        void *ud);

/* The functions nobody uses, as the page search_codebase returns ({:vars :rows :total
 * :truncated ...}): a function is used when its name appears in code (a call, an address
 * taken, a table, a macro body; comments and strings do not count) outside its own
 * definitions and prototypes, for a static one in its file or a file that #includes it
 * (transitively), for another anywhere. Functions under a disabled #if are listed too,
 * marked :inactive; under f->in when given, static when f->statics; main is never listed. */
/* root: the working tree's top directory, where a file a source #includes but the index
 * does not hold (a .def table) is read; NULL: none is read. QR_EINVAL when such a file is
 * missing (the answer cannot be known). */
int qr__codeframe_unused(qr_code_graph *g, const char *root, const qr_stop *stop, const cf_frame *f,
                         size_t offset, size_t limit, qr_arena *a, qr_val *out, qr_buf *err);

#endif
