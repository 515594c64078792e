/*
 * git_dl.h: libgit2 reached through a table of function pointers filled when the first
 * libgit2 function is called (src/git/git_dl.c), rather than linked: libgit2 and what it
 * needs (mbedTLS, libssh2, Kerberos, OpenSSL's libcrypto, http-parser, zlib) are about
 * fifteen shared libraries whose mapping cost every quarry command several milliseconds
 * of start-up, while most commands (`quarry lisp -e ...`, `quarry tools`, `quarry mcp`
 * before its first git call) never touch a repository.
 *
 * Every file of src/git (through git_int.h) and of src/code includes this: each libgit2 function the git
 * source calls is a macro that reads its pointer from the table, so call sites are plain
 * libgit2 calls. A function used here must be listed in QR_GIT_FUNCTIONS (the build
 * fails otherwise: the call would need the library linked).
 */
#ifndef QUARRY_GIT_DL_H
#define QUARRY_GIT_DL_H

#include "quarry/base.h"

#include <git2.h>
#include <stdatomic.h>

#define QR_GIT_FUNCTIONS(X) \
    /* end */ \
    X(git_blob_free) \
    X(git_blob_lookup) \
    X(git_blob_rawcontent) \
    X(git_blob_rawsize) \
    X(git_buf_dispose) \
    X(git_commit_author) \
    X(git_commit_free) \
    X(git_commit_id) \
    X(git_commit_lookup) \
    X(git_commit_message) \
    X(git_commit_message_encoding) \
    X(git_commit_parent) \
    X(git_commit_parent_id) \
    X(git_commit_parentcount) \
    X(git_commit_time) \
    X(git_commit_time_offset) \
    X(git_commit_tree) \
    X(git_config_free) \
    X(git_config_get_path) \
    X(git_config_get_string_buf) \
    X(git_config_iterator_free) \
    X(git_config_iterator_new) \
    X(git_config_next) \
    X(git_diff_tree_to_tree) \
    X(git_error_last) \
    X(git_graph_descendant_of) \
    X(git_index_entrycount) \
    X(git_index_free) \
    X(git_index_get_byindex) \
    X(git_index_read) \
    X(git_libgit2_init) \
    X(git_libgit2_opts) \
    X(git_libgit2_shutdown) \
    X(git_merge_bases) \
    X(git_object_free) \
    X(git_object_id) \
    X(git_object_peel) \
    X(git_object_type) \
    X(git_oid_cmp) \
    X(git_oid_cpy) \
    X(git_oid_equal) \
    X(git_oid_fmt) \
    X(git_oid_fromstr) \
    X(git_oid_fromstrn) \
    X(git_oid_is_zero) \
    X(git_oid_tostr) \
    X(git_oidarray_dispose) \
    X(git_reference_free) \
    X(git_reference_iterator_free) \
    X(git_reference_iterator_new) \
    X(git_reference_name_to_id) \
    X(git_reference_next) \
    X(git_reference_peel) \
    X(git_repository_commondir) \
    X(git_repository_config_snapshot) \
    X(git_repository_free) \
    X(git_repository_hashfile) \
    X(git_repository_head_unborn) \
    X(git_repository_index) \
    X(git_repository_is_bare) \
    X(git_repository_open_ext) \
    X(git_repository_path) \
    X(git_repository_workdir) \
    X(git_revparse_single) \
    X(git_revwalk_free) \
    X(git_revwalk_new) \
    X(git_revwalk_next) \
    X(git_revwalk_push_head) \
    X(git_status_byindex) \
    X(git_status_list_entrycount) \
    X(git_status_list_free) \
    X(git_status_list_new) \
    X(git_status_options_init) \
    X(git_strarray_dispose) \
    X(git_tag_list) \
    X(git_tag_message) \
    X(git_tag_tagger) \
    X(git_tree_entry_byindex) \
    X(git_tree_entry_bypath) \
    X(git_tree_entry_filemode) \
    X(git_tree_entry_free) \
    X(git_tree_entry_id) \
    X(git_tree_entry_name) \
    X(git_tree_entry_type) \
    X(git_tree_entrycount) \
    X(git_tree_free) \
    X(git_tree_id) \
    X(git_tree_lookup) \
    X(git_tree_walk)

typedef struct qr_git_api {
#define QR_GIT_FIELD(f) __typeof__(f) *f;
    QR_GIT_FUNCTIONS(QR_GIT_FIELD)
#undef QR_GIT_FIELD
} qr_git_api;

/* Loads libgit2 once (any thread); false with a message in err when it cannot be. */
bool qr__git_load(qr_buf *err);
/* The table; loads libgit2 on first use. A failed load aborts with a message on stderr:
 * qr_git_open calls qr__git_load first, so that a missing library is reported as an
 * error before any other libgit2 call can be reached. Once loaded, a call costs one
 * (acquire) load of the table's address. */
const qr_git_api *qr__git_api_load(void);
extern const qr_git_api *_Atomic qr__git_api_ready;
static inline const qr_git_api *qr__git_api(void)
{
    const qr_git_api *t = atomic_load_explicit(&qr__git_api_ready, memory_order_acquire);
    return t ? t : qr__git_api_load();
}

#ifndef QR_GIT_DL_IMPL
#define git_blob_free (qr__git_api()->git_blob_free)
#define git_blob_lookup (qr__git_api()->git_blob_lookup)
#define git_blob_rawcontent (qr__git_api()->git_blob_rawcontent)
#define git_blob_rawsize (qr__git_api()->git_blob_rawsize)
#define git_buf_dispose (qr__git_api()->git_buf_dispose)
#define git_commit_author (qr__git_api()->git_commit_author)
#define git_commit_free (qr__git_api()->git_commit_free)
#define git_commit_id (qr__git_api()->git_commit_id)
#define git_commit_lookup (qr__git_api()->git_commit_lookup)
#define git_commit_message (qr__git_api()->git_commit_message)
#define git_commit_message_encoding (qr__git_api()->git_commit_message_encoding)
#define git_commit_parent (qr__git_api()->git_commit_parent)
#define git_commit_parent_id (qr__git_api()->git_commit_parent_id)
#define git_commit_parentcount (qr__git_api()->git_commit_parentcount)
#define git_commit_time (qr__git_api()->git_commit_time)
#define git_commit_time_offset (qr__git_api()->git_commit_time_offset)
#define git_commit_tree (qr__git_api()->git_commit_tree)
#define git_config_free (qr__git_api()->git_config_free)
#define git_config_get_path (qr__git_api()->git_config_get_path)
#define git_config_get_string_buf (qr__git_api()->git_config_get_string_buf)
#define git_config_iterator_free (qr__git_api()->git_config_iterator_free)
#define git_config_iterator_new (qr__git_api()->git_config_iterator_new)
#define git_config_next (qr__git_api()->git_config_next)
#define git_diff_tree_to_tree (qr__git_api()->git_diff_tree_to_tree)
#define git_error_last (qr__git_api()->git_error_last)
#define git_index_entrycount (qr__git_api()->git_index_entrycount)
#define git_index_free (qr__git_api()->git_index_free)
#define git_index_get_byindex (qr__git_api()->git_index_get_byindex)
#define git_index_read (qr__git_api()->git_index_read)
#define git_libgit2_init (qr__git_api()->git_libgit2_init)
#define git_libgit2_opts (qr__git_api()->git_libgit2_opts)
#define git_libgit2_shutdown (qr__git_api()->git_libgit2_shutdown)
#define git_merge_bases (qr__git_api()->git_merge_bases)
#define git_graph_descendant_of (qr__git_api()->git_graph_descendant_of)
#define git_strarray_dispose (qr__git_api()->git_strarray_dispose)
#define git_tag_list (qr__git_api()->git_tag_list)
#define git_tag_message (qr__git_api()->git_tag_message)
#define git_tag_tagger (qr__git_api()->git_tag_tagger)
#define git_object_free (qr__git_api()->git_object_free)
#define git_object_id (qr__git_api()->git_object_id)
#define git_object_peel (qr__git_api()->git_object_peel)
#define git_object_type (qr__git_api()->git_object_type)
#define git_oid_cmp (qr__git_api()->git_oid_cmp)
#define git_oid_cpy (qr__git_api()->git_oid_cpy)
#define git_oid_equal (qr__git_api()->git_oid_equal)
#define git_oid_fmt (qr__git_api()->git_oid_fmt)
#define git_oid_fromstr (qr__git_api()->git_oid_fromstr)
#define git_oid_fromstrn (qr__git_api()->git_oid_fromstrn)
#define git_oid_is_zero (qr__git_api()->git_oid_is_zero)
#define git_oid_tostr (qr__git_api()->git_oid_tostr)
#define git_oidarray_dispose (qr__git_api()->git_oidarray_dispose)
#define git_reference_free (qr__git_api()->git_reference_free)
#define git_reference_iterator_free (qr__git_api()->git_reference_iterator_free)
#define git_reference_iterator_new (qr__git_api()->git_reference_iterator_new)
#define git_reference_name_to_id (qr__git_api()->git_reference_name_to_id)
#define git_reference_next (qr__git_api()->git_reference_next)
#define git_reference_peel (qr__git_api()->git_reference_peel)
#define git_repository_commondir (qr__git_api()->git_repository_commondir)
#define git_repository_config_snapshot (qr__git_api()->git_repository_config_snapshot)
#define git_repository_free (qr__git_api()->git_repository_free)
#define git_repository_hashfile (qr__git_api()->git_repository_hashfile)
#define git_repository_head_unborn (qr__git_api()->git_repository_head_unborn)
#define git_repository_index (qr__git_api()->git_repository_index)
#define git_repository_is_bare (qr__git_api()->git_repository_is_bare)
#define git_repository_open_ext (qr__git_api()->git_repository_open_ext)
#define git_repository_path (qr__git_api()->git_repository_path)
#define git_repository_workdir (qr__git_api()->git_repository_workdir)
#define git_revparse_single (qr__git_api()->git_revparse_single)
#define git_revwalk_free (qr__git_api()->git_revwalk_free)
#define git_revwalk_new (qr__git_api()->git_revwalk_new)
#define git_revwalk_next (qr__git_api()->git_revwalk_next)
#define git_revwalk_push_head (qr__git_api()->git_revwalk_push_head)
#define git_status_byindex (qr__git_api()->git_status_byindex)
#define git_status_list_entrycount (qr__git_api()->git_status_list_entrycount)
#define git_status_list_free (qr__git_api()->git_status_list_free)
#define git_status_list_new (qr__git_api()->git_status_list_new)
#define git_status_options_init (qr__git_api()->git_status_options_init)
#define git_tree_entry_byindex (qr__git_api()->git_tree_entry_byindex)
#define git_tree_entry_bypath (qr__git_api()->git_tree_entry_bypath)
#define git_tree_entry_filemode (qr__git_api()->git_tree_entry_filemode)
#define git_tree_entry_free (qr__git_api()->git_tree_entry_free)
#define git_tree_entry_id (qr__git_api()->git_tree_entry_id)
#define git_tree_entry_name (qr__git_api()->git_tree_entry_name)
#define git_tree_entry_type (qr__git_api()->git_tree_entry_type)
#define git_tree_entrycount (qr__git_api()->git_tree_entrycount)
#define git_tree_free (qr__git_api()->git_tree_free)
#define git_tree_id (qr__git_api()->git_tree_id)
#define git_tree_lookup (qr__git_api()->git_tree_lookup)
#define git_tree_walk (qr__git_api()->git_tree_walk)
#endif

#endif
