/*
 * router_words.c: the tier-1 router's vocabulary: filler words, the content words and
 * their canonical bits (synonyms share one), words that are never a person's name, the
 * most common English words (never read as a bare name), number words, and the words
 * worth reading through a typo. One table each, so that a new synonym is one line here
 * and the parser (router.c) stays about reading.
 */
#include "router_int.h"

/* Filler: words that never change what is asked. */
const char *const RT_STOP[] = {
    "please", "pls", "kindly", "show", "me", "us", "list", "display", "give", "get", "find",
    "tell", "what", "which", "are", "is", "was", "were", "be", "been", "the", "a", "an", "all",
    "any", "of", "in", "on", "for", "to", "with", "that", "i", "we", "you", "can", "could",
    "would", "will", "want", "like", "see", "there", "have", "has", "had", "do", "does", "did",
    "my", "our", "repo", "repository", "project", "codebase", "git", "here", "so", "far",
    "ever", "some", "let", "know", "need", "look", "at", "just", "only", "hey", "hi", "its", "very",
    "their", "it", "this", "repo's", "whole", "entire", "into", "up", "got", "seen", "return",
    "fetch", "retrieve", "grab", "provide", "report", NULL};

typedef struct canon {
    const char *word;
    uint32_t bit;
} canon;

static const canon CANON[] = {
    {"commit", RW_COMMITS},       {"commits", RW_COMMITS},       {"change", RW_CHANGE},
    {"changes", RW_CHANGE},       {"changed", RW_CHANGE},        {"modified", RW_CHANGE},
    {"modifications", RW_CHANGE}, {"modification", RW_CHANGE},   {"modify", RW_CHANGE},
    {"edited", RW_CHANGE},        {"edits", RW_CHANGE},          {"touched", RW_CHANGE},
    {"updated", RW_CHANGE},       {"happened", RW_CHANGE},       {"committed", RW_COMMITTED},
    {"contributed", RW_COMMITTED}, {"contributes", RW_COMMITTED}, {"contributions", RW_COMMITTED},
    {"contribution", RW_COMMITTED}, {"worked", RW_COMMITTED},    {"work", RW_COMMITTED},
    {"author", RW_AUTHORS},       {"authors", RW_AUTHORS},       {"contributor", RW_AUTHORS},
    {"contributors", RW_AUTHORS}, {"committer", RW_AUTHORS},     {"committers", RW_AUTHORS},
    {"developer", RW_AUTHORS},    {"developers", RW_AUTHORS},    {"devs", RW_AUTHORS},
    {"people", RW_AUTHORS},       {"members", RW_AUTHORS},       {"hash", RW_COMMITS},          {"sha", RW_COMMITS},
    {"hashes", RW_COMMITS},        {"shas", RW_COMMITS},
    {"sha1", RW_COMMITS},       {"member", RW_AUTHORS},
    {"teammates", RW_AUTHORS},    {"teammate", RW_AUTHORS},       {"engineers", RW_AUTHORS},     {"who", RW_WHO},
    {"most", RW_MOST},            {"top", RW_MOST},              {"highest", RW_MOST},
    {"active", RW_ACTIVE},        {"prolific", RW_ACTIVE},       {"file", RW_FILES},
    {"files", RW_FILES},          {"paths", RW_FILES},           {"largest", RW_LARGEST},
    {"biggest", RW_LARGEST},      {"big", RW_LARGEST},           {"large", RW_LARGEST},
    {"huge", RW_LARGEST},         {"recent", RW_RECENT},         {"recently", RW_RECENT},
    {"latest", RW_RECENT},        {"newest", RW_RECENT},         {"last", RW_RECENT},
    {"history", RW_HISTORY},      {"log", RW_HISTORY},           {"count", RW_COUNT},
    {"total", RW_COUNT},          {"hotspots", RW_HOTSPOTS},     {"hotspot", RW_HOTSPOTS},
    {"churn", RW_HOTSPOTS},       {"often", RW_OFTEN},           {"frequently", RW_OFTEN},
    {"when", RW_WHEN},            {"ranked", RW_RANKED},         {"rank", RW_RANKED},
    {"ranking", RW_RANKED},       {"sorted", RW_RANKED},         {"ordered", RW_RANKED},
    {"message", RW_MESSAGE},       {"messages", RW_MESSAGE},
    {"subject", RW_MESSAGE},      {"title", RW_MESSAGE},         {"whose", RW_WHOSE},
    {"subjects", RW_MESSAGE},     {"titles", RW_MESSAGE},        {"diff", RW_FILES},
    {"diffstat", RW_FILES},
    {"where", RW_WHOSE},          {"per", RW_PER},               {"by", RW_BY},
    {"owns", RW_OWNS},            {"owner", RW_OWNS},            {"owners", RW_OWNS},
    {"knows", RW_OWNS},           {"know", RW_OWNS},             {"expert", RW_OWNS},
    {"experts", RW_OWNS},         {"maintains", RW_OWNS},        {"maintainer", RW_OWNS},
    {"maintainers", RW_OWNS},     {"best", RW_OWNS},             {"person", RW_AUTHORS},
    {"least", RW_MOST},           {"fewest", RW_MOST},
    {"made", RW_MADE},            {"make", RW_MADE},             {"pushed", RW_MADE},
    {"done", RW_MADE},            {"lines", RW_LINES},           {"line", RW_LINES},
    {"push", RW_MADE},            {"landed", RW_MADE},           {"land", RW_MADE},
    {"shipped", RW_MADE},            {"pushes", RW_MADE},           {"edit", RW_CHANGE},
    {"working", RW_COMMITTED},    {"everything", RW_HISTORY},    {"anything", RW_HISTORY},
    {"activity", RW_HISTORY},     {"leaderboard", RW_RANKED | RW_AUTHORS},
    {"first", RW_FIRST},          {"earliest", RW_FIRST},        {"oldest", RW_FIRST},
    {"originally", RW_FIRST},     {"original", RW_FIRST},        {"initial", RW_FIRST},
    {"created", RW_CREATED},      {"introduced", RW_CREATED},    {"added", RW_CREATED},
    {"create", RW_CREATED},       {"add", RW_CREATED},           {"adds", RW_CREATED},
    {"times", RW_COUNT},
    {"anyone", RW_WHO},           {"anybody", RW_WHO},           {"someone", RW_WHO},
    {"somebody", RW_WHO},         {"deleted", RW_DELETED},       {"removed", RW_DELETED},
    {"delete", RW_DELETED},       {"remove", RW_DELETED},
    {"busiest", RW_MOST},         {"authored", RW_COMMITTED},    {"land", RW_MADE},
    {"landed", RW_MADE},          {"landing", RW_MADE},          {"touch", RW_CHANGE},
    {"touches", RW_CHANGE},       {"counts", RW_COUNT},          {"hottest", RW_HOTSPOTS},
    {"appear", RW_CREATED},       {"appeared", RW_CREATED},      {"appears", RW_CREATED},
    {"creator", RW_CREATED | RW_WHO}, {"author's", RW_AUTHORS},
    {NULL, 0}};

/* Build and packaging files people name without an extension. */
bool rt_conventional_file(const char *s)
{
    static const char *const NAMES[] = {"Makefile", "makefile", "GNUmakefile", "Dockerfile",
                                        "Containerfile", "Jenkinsfile", "Vagrantfile",
                                        "Rakefile", "Gemfile", "Procfile", "Justfile",
                                        "LICENSE", "COPYING", NULL};
    const char *base = strrchr(s, '/');
    base = base ? base + 1 : s;
    return in_list(base, NAMES);
}

uint32_t rt_canon_bit(const char *w)
{
    for (size_t i = 0; CANON[i].word; i++)
        if (strcmp(w, CANON[i].word) == 0)
            return CANON[i].bit;
    return 0;
}

/* Words after "by" (or before 's) that are never a person: pronouns, the nouns a
 * question about history uses ("commits by weekday", "by mistake", "main's commits"). */
const char *const RT_NOT_NAME[] = {
    "he", "she", "they", "we", "i", "you", "it", "me", "him", "her", "them", "us", "one",
    "someone", "somebody", "anyone", "anybody", "everyone", "everybody", "nobody", "noone",
    "no-one", "whom", "whoever", "people", "person", "persons", "human", "humans", "user",
    "users", "team", "teams", "member", "members", "staff", "maintainer", "maintainers",
    "reviewer", "reviewers", "owner", "owners", "admin", "admins", "bots", "bot", "robot",
    "robots", "machine", "ci", "mistake", "accident", "error", "default", "hand", "design",
    "chance", "force", "weekday", "weekdays", "weekend", "weekends", "day", "days", "week",
    "weeks", "month", "months", "year", "years", "hour", "hours", "minute", "date", "dates",
    "time", "morning", "evening", "night", "size", "type", "types", "kind", "file", "files",
    "line", "lines", "folder", "directory", "path", "module", "component", "area", "package",
    "language", "extension", "risk", "score", "frequency", "importance", "impact",
    "severity", "priority", "category", "additions", "deletions", "number", "count",
    "amount", "total", "name", "email", "each", "every", "complexity", "value", "quality",
    "review", "status", "tests", "test", "today", "yesterday", "now", "tomorrow", "how",
    "why", "and", "or", "not", "no", "many", "much", "mentioning", "containing", "matching",
    "since", "until", "before", "after", "between", "from", "ago", "merge", "merges",
    "alphabetically", "descending", "ascending", "message", "two", "three", "branch",
    "branches", "main", "master", "head", "origin", "upstream", "trunk", "develop", "dev",
    "feature", "release", "tag", "tags", "commit", "commits", "bug", "bugs", "fix", "fixes",
    "issue", "issues", "ticket", "pr", "prs", "request", "requests", "patch", "patches",
    "code", "source", "docs", "config", "build", "linux", "windows", "mac", NULL};

/* The most common English words (function words, verbs, adjectives and nouns), about
 * 400 of them: a bare word that is one of these is never read as a name ("commits by
 * new contributors", "what did every one do"), whatever marks it. A person with such a
 * name is asked for with quotes ("commits by \"Will\""). */
const char *const RT_COMMON[] = {
    /* determiners, pronouns, conjunctions, prepositions */
    "the", "a", "an", "this", "that", "these", "those", "my", "your", "his", "its", "our",
    "their", "mine", "yours", "hers", "ours", "theirs", "myself", "yourself", "himself",
    "herself", "itself", "ourselves", "themselves", "who", "what", "which", "whose",
    "where", "when", "whatever", "something", "anything", "everything", "nothing", "all",
    "any", "some", "none", "few", "several", "both", "either", "neither", "other",
    "others", "another", "such", "same", "own", "more", "most", "less", "least", "and",
    "but", "or", "nor", "so", "yet", "if", "then", "than", "because", "while", "though",
    "although", "unless", "whether", "as", "at", "by", "for", "from", "in", "into", "of",
    "off", "on", "onto", "out", "over", "to", "up", "upon", "with", "within", "without",
    "about", "above", "across", "against", "along", "among", "around", "behind", "below",
    "beneath", "beside", "beyond", "down", "during", "except", "inside", "near", "outside",
    "past", "through", "throughout", "toward", "towards", "under", "via", "per", "like",
    "unlike",
    /* auxiliaries and common verbs */
    "am", "is", "are", "was", "were", "be", "been", "being", "have", "has", "had",
    "having", "do", "does", "did", "doing", "done", "can", "could", "shall", "should",
    "will", "would", "may", "might", "must", "ought", "get", "got", "gets", "go", "goes",
    "going", "gone", "went", "make", "makes", "made", "take", "took", "taken", "come",
    "came", "see", "saw", "seen", "know", "knew", "known", "think", "thought", "say",
    "said", "tell", "told", "give", "gave", "given", "find", "found", "use", "used", "want",
    "look", "seem", "keep", "let", "put", "set", "run", "show", "try", "call", "ask",
    "feel", "leave", "mean", "become", "begin", "help", "start", "turn", "move", "live",
    "bring", "happen", "write", "wrote", "written", "read", "add", "added", "remove",
    "removed", "delete", "deleted", "change", "changed", "create", "created", "stop",
    "open", "close", "pay", "meet", "learn", "lead", "follow", "speak", "allow", "spend",
    "grow", "win", "buy", "wait", "send", "expect", "stay", "fall", "cut", "reach", "pass",
    "sell", "decide", "pull", "break", "push", "pushed", "revert", "ship", "worked",
    /* adverbs */
    "not", "very", "too", "also", "just", "only", "even", "still", "already", "again",
    "ever", "never", "always", "often", "sometimes", "usually", "really", "quite",
    "rather", "almost", "enough", "here", "there", "why", "how", "soon", "later",
    "once", "twice", "first", "last", "next", "away", "back", "well", "better", "best",
    "worse", "worst", "else", "together", "maybe", "perhaps", "probably", "yes", "no",
    /* adjectives */
    "new", "old", "good", "bad", "great", "big", "small", "large", "little", "long",
    "short", "high", "low", "early", "late", "young", "important", "different", "right",
    "wrong", "left", "real", "true", "false", "sure", "whole", "free", "full", "public",
    "private", "recent", "latest", "current", "previous", "random", "various", "certain",
    "main", "top", "total", "average", "single", "empty",
    /* nouns */
    "man", "woman", "men", "women", "child", "children", "group", "way", "thing", "things",
    "world", "life", "part", "place", "case", "point", "fact", "question", "problem",
    "word", "words", "end", "side", "home", "state", "country", "city", "money", "water",
    "book", "story", "lot", "bit", "level", "result", "reason", "rest", "company",
    "system", "program", "job", "example", "order", "list", "idea", "body", "information",
    "power", "war", "history", "party", "market", "law", "game", "room", "car", "family",
    "school", "office", "door", "health", "art", "service", "process", "data", "changes",
    "project", NULL};

const char *const RT_NUM_WORDS[] = {
    "zero",    "one",     "two",     "three",    "four",     "five",    "six",
    "seven",   "eight",   "nine",    "ten",      "eleven",   "twelve",  "thirteen",
    "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", NULL};

/* Words a question about history uses that are worth reading through a typo
 * ("commmits", "contributer", "wek"); others are left as they are, since correcting an
 * ordinary word into one of these would change the question. */
const char *const RT_TYPO_TARGETS[] = {
    "commits", "commit", "committed", "contributors", "contributor", "contributed", "authors",
    "author", "committers", "committer", "developers", "changed", "changes", "modified",
    "files", "largest",
    "biggest", "recent", "recently", "latest", "history", "yesterday", "today", "week",
    "weeks", "month", "months", "year", "years", "since", "between", "hotspots", "active",
    "frequently", "messages", "weekend", "quarter", "additions", "deletions", "created",
    "renamed", "deleted", "first", "earliest", "oldest", "newest", "released", "release",
    "releases", "tagged", "touched", "january", "february", "march", "april",
    "june", "july", "august", "september", "october", "november", "december", "monday",
    "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "made", "second",
    "third", "fourth", "fifth", NULL};

