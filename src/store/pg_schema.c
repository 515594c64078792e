/*
 * pg_schema.c: the numbered migrations of the team database (quarry/store.h,
 * qr_store_pg_migrations), the schema every store shared on PostgreSQL reads.
 *
 * Design: one list, numbered from 1 without gaps, applied in order by
 * qr_store_pg_migrate and recorded in schema_migrations; a migration once released is
 * never edited (a database that applied it would differ from one that applies the new
 * text): a change is a new migration. Tables are named by the store that owns them
 * (mem_*, and later the statistics and code indexes' own), so one database holds them all.
 *
 * Migration 1, the memory store: the shape of the SQLite memory schema (src/memory/store.c)
 * with one store per database, shared by every agent that connects: notes are keyed by
 * their key (unique across agents), visits carry the agent that made them, and the change
 * counter is one row (mem_state) that writers bump with UPDATE ... SET generation =
 * generation + 1 in their transaction, so concurrent writers never lose a count. Search is
 * a stored tsvector with a GIN index instead of FTS5. due_agents is the scheduler's lease
 * table: an agent is due at `due` (Unix seconds); a scheduler claims it with SELECT ... FOR
 * UPDATE SKIP LOCKED and writes its holder and lease_until, so a crashed holder's lease
 * expires. Migration 2 adds the memory agents' run state to that table (last_ok,
 * last_attempt, error: what STORE.agents.json holds for an SQLite store).
 *
 * Migration 3, the statistics index of many repositories (src/git/shared_index.c):
 * git_repos names each repository by a stable id (its root commit and a name) and is the
 * indexing queue (queued, requested, and a lease: holder, lease_until); git_commits and
 * git_files hold what the SQLite index and the commit walk give per commit, keyed by
 * (repo, oid). A worker writes a run's rows under generation gen + 1 and publishes it at
 * the end (git_repos.gen): the views git_commits_live and git_files_live show published
 * rows only, so a half-done or killed run is never seen.
 *
 * Migration 4, the code graph of many repositories (src/code/store_pg.c): the rows of the
 * SQLite code index (src/code/store.c) with the extractor's version (v) in every key, so
 * binaries of two versions share a database without reading each other's rows, and a blob
 * is parsed once whichever repository holds it; code_repos and code_files say what each
 * repository's last `quarry code index` saw (its commit, and every file by path and blob).
 *
 * Migration 6, the merges of the statistics index (src/git/shared_index.c): for each merge
 * and each of its parents, the files that differ between them (git_merge_parents.paths),
 * from which a path window decides as git's history simplification does
 * whether a merge is shown and which parents the walk follows.
 *
 * Rejected: one table per agent or a schema per agent (agents share what they learn:
 * that is the point of the shared store); TIMESTAMPTZ columns (the SQLite store keeps Unix
 * seconds, and export/import must round-trip exactly).
 */
#include "quarry/store.h"

static const qr_store_migration migrations[] = {
    {1, "memory store and due-agents lease table",
     "CREATE TABLE mem_nodes(id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
     " key text NOT NULL UNIQUE, type text NOT NULL,"
     " weight double precision NOT NULL CHECK (weight >= 0 AND weight <= 1),"
     " provenance text NOT NULL, created bigint NOT NULL, modified bigint NOT NULL,"
     " retrievals bigint NOT NULL DEFAULT 0, uses bigint NOT NULL DEFAULT 0,"
     " wrongs bigint NOT NULL DEFAULT 0, deleted bigint,"
     " content_len bigint NOT NULL, content text NOT NULL,"
     " search tsvector GENERATED ALWAYS AS"
     " (to_tsvector('english'::regconfig, key || ' ' || content)) STORED);"
     "CREATE INDEX mem_nodes_search ON mem_nodes USING gin(search);"
     "CREATE TABLE mem_tags(node bigint NOT NULL REFERENCES mem_nodes(id), tag text NOT NULL,"
     " PRIMARY KEY(node, tag));"
     "CREATE TABLE mem_edges(source bigint NOT NULL REFERENCES mem_nodes(id),"
     " target bigint NOT NULL REFERENCES mem_nodes(id), type text NOT NULL,"
     " strength double precision NOT NULL CHECK (strength > 0 AND strength <= 1),"
     " PRIMARY KEY(source, target, type));"
     "CREATE INDEX mem_edges_target ON mem_edges(target);"
     "CREATE TABLE mem_visits(id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
     " node bigint NOT NULL REFERENCES mem_nodes(id), agent text NOT NULL,"
     " time bigint NOT NULL, outcome text NOT NULL);"
     "CREATE INDEX mem_visits_agent ON mem_visits(agent, node, time);"
     "CREATE TABLE mem_state(one boolean PRIMARY KEY DEFAULT true CHECK (one),"
     " generation bigint NOT NULL DEFAULT 0, write_id bigint NOT NULL DEFAULT 0,"
     " created bigint NOT NULL DEFAULT 0);"
     "INSERT INTO mem_state DEFAULT VALUES;"
     "CREATE TABLE due_agents(agent text PRIMARY KEY, due bigint NOT NULL,"
     " holder text, lease_until bigint, runs bigint NOT NULL DEFAULT 0);"
     "CREATE INDEX due_agents_due ON due_agents(due);"},
    /* the scheduled memory agents' run state (src/agents/mem_agent_run.c): on a shared
     * store it lives beside the lease, not in a file on one machine */
    {2, "memory agents' run state in due_agents",
     "ALTER TABLE due_agents ADD COLUMN last_ok bigint NOT NULL DEFAULT 0,"
     " ADD COLUMN last_attempt bigint NOT NULL DEFAULT 0, ADD COLUMN error text;"},
    /* the statistics index shared by many repositories (src/git/shared_index.c): the
     * repositories and their indexing queue, one row per (repository, commit), one per
     * (repository, commit, file); rows of a run in progress carry the generation it will
     * publish, and the views show only what a finished run published */
    {3, "statistics index of many repositories and its indexing queue",
     "CREATE TABLE git_repos(id text PRIMARY KEY, name text NOT NULL, location text NOT NULL,"
     " head text, gen bigint NOT NULL DEFAULT 0, indexed_at bigint,"
     " commits bigint NOT NULL DEFAULT 0, queued bigint, requested bigint NOT NULL DEFAULT 0,"
     " holder text, lease_until bigint, runs bigint NOT NULL DEFAULT 0, error text);"
     "CREATE INDEX git_repos_queue ON git_repos(queued) WHERE queued IS NOT NULL;"
     "CREATE TABLE git_commits(repo text NOT NULL REFERENCES git_repos(id) ON DELETE CASCADE,"
     " oid text NOT NULL, gen bigint NOT NULL, author text NOT NULL, email text NOT NULL,"
     " raw_author text NOT NULL, raw_email text NOT NULL, atime bigint NOT NULL,"
     " aoffset integer NOT NULL, ctime bigint NOT NULL, nparents integer NOT NULL,"
     " parents text NOT NULL, subject text NOT NULL, message text NOT NULL,"
     " nfiles integer NOT NULL, additions bigint NOT NULL, deletions bigint NOT NULL,"
     " PRIMARY KEY(repo, oid));"
     "CREATE INDEX git_commits_ctime ON git_commits(ctime);"
     "CREATE INDEX git_commits_email ON git_commits(email);"
     "CREATE TABLE git_files(repo text NOT NULL, oid text NOT NULL, seq integer NOT NULL,"
     " path text NOT NULL, path_key bytea,"
     " additions bigint NOT NULL, deletions bigint NOT NULL, is_binary boolean NOT NULL,"
     " status text NOT NULL, PRIMARY KEY(repo, oid, seq),"
     " FOREIGN KEY(repo, oid) REFERENCES git_commits(repo, oid) ON DELETE CASCADE);"
     "CREATE INDEX git_files_path ON git_files(path);"
     "CREATE VIEW git_commits_live AS SELECT r.name AS repo_name, c.* FROM git_commits c"
     " JOIN git_repos r ON r.id = c.repo AND c.gen <= r.gen;"
     "CREATE VIEW git_files_live AS SELECT c.repo_name, f.*, c.author, c.email, c.atime,"
     " c.aoffset, c.ctime FROM git_files f JOIN git_commits_live c USING (repo, oid);"},
    /* the code graph shared by many repositories (src/code/store_pg.c): what the extractor
     * found in a blob, keyed by the extractor's version and the blob id, so a blob that
     * forks or vendored copies share is parsed once; and per repository the files of the
     * tree it last indexed, at which commit */
    {4, "code graph of many repositories, keyed by blob",
     "CREATE TABLE code_blobs(v integer NOT NULL, oid text NOT NULL, lang integer NOT NULL,"
     " status integer NOT NULL, bytes bigint NOT NULL, lines bigint NOT NULL,"
     " errors bigint NOT NULL, error_lines text NOT NULL, PRIMARY KEY(v, oid));"
     "CREATE TABLE code_items(v integer NOT NULL, oid text NOT NULL, seq integer NOT NULL,"
     " kind integer NOT NULL, name text, parent text, type text, signature text, cond text,"
     " line bigint NOT NULL, end_line bigint NOT NULL, start_byte bigint NOT NULL,"
     " end_byte bigint NOT NULL, flags bigint NOT NULL, PRIMARY KEY(v, oid, seq));"
     "CREATE INDEX code_items_name ON code_items(name);"
     "CREATE TABLE code_refs(v integer NOT NULL, oid text NOT NULL, seq integer NOT NULL,"
     " kind integer NOT NULL, from_name text, name text, cond text, line bigint NOT NULL,"
     " PRIMARY KEY(v, oid, seq));"
     "CREATE INDEX code_refs_name ON code_refs(name);"
     "CREATE TABLE code_names(v integer NOT NULL, oid text NOT NULL, data text NOT NULL,"
     " PRIMARY KEY(v, oid));"
     "CREATE TABLE code_repos(name text PRIMARY KEY, location text NOT NULL,"
     " commit text, worktree boolean NOT NULL, v integer NOT NULL,"
     " indexed_at bigint NOT NULL, files bigint NOT NULL);"
     "CREATE TABLE code_files(repo text NOT NULL REFERENCES code_repos(name) ON DELETE CASCADE,"
     " path text NOT NULL, oid text NOT NULL, lang integer NOT NULL,"
     " PRIMARY KEY(repo, path));"
     "CREATE INDEX code_files_oid ON code_files(oid);"},
    /* each commit's place in the walk from HEAD (src/git/shared_index.c): get_commits with
     * repos lists a repository's commits in the local tool's order, which committer dates
     * alone do not give (equal dates, a child dated before its parent), and interleaves
     * repositories by walk_time; NULL until a worker's next run of the repository */
    {5, "the order of a repository's commits in git_commits.walk_pos",
     "ALTER TABLE git_commits ADD COLUMN walk_pos bigint, ADD COLUMN walk_time bigint;"
     "CREATE OR REPLACE VIEW git_commits_live AS SELECT r.name AS repo_name, c.*"
     " FROM git_commits c JOIN git_repos r ON r.id = c.repo AND c.gen <= r.gen;"},
    /* what a path window needs of a merge (src/git/shared_index.c, shared_tools.c): for
     * each of its parents (idx from 0, in the commit's order), the files whose entry
     * differs between that parent's tree and the merge's, as one array (a row per file
     * took three times the space of git_files on libevent); a merge without rows here was
     * published before this migration and is filled by its repository's next run */
    {6, "the files in which each merge differs from each parent",
     "CREATE TABLE git_merge_parents(repo text NOT NULL, oid text NOT NULL,"
     " idx integer NOT NULL, parent text NOT NULL, paths text[] NOT NULL,"
     " PRIMARY KEY(repo, oid, idx),"
     " FOREIGN KEY(repo, oid) REFERENCES git_commits(repo, oid) ON DELETE CASCADE);"},
};

const qr_store_migration *qr_store_pg_migrations(size_t *n)
{
    *n = sizeof migrations / sizeof *migrations;
    return migrations;
}
