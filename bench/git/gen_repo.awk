# gen_repo.awk -- writes a `git fast-import` stream for the synthetic history of the git
# benchmark (see README.md). Run with no input:
#
#   LC_ALL=C awk -v commits=20000 -v authors=30 -f gen_repo.awk /dev/null | git fast-import
#
# -v big=K (default 1) makes every commit K times larger: K times the files added and the
# files edited, so a history of large commits over many files (a real project's shape:
# vendored code, generated files, sweeping refactors). big=1 gives the same stream as
# before the option existed (no random number is drawn differently).
#
# Deterministic: its own random numbers (Park-Miller, exact in any awk's doubles), fixed
# dates, ASCII content; the same stream, so the same commit ids, from mawk, gawk or
# busybox awk. The history: `main` with ~300 files at the start growing to a few
# thousand (adds, edits, deletes, renames), 30 authors with skewed activity and their own
# UTC offsets, one of whom changed email (mapped back by a .mailmap), topic branches
# forked from main and merged back with --no-ff merges (some touching files main changed
# meanwhile), annotated tags every 2,000 commits, and a last topic left unmerged so that
# not every commit is reachable from HEAD.
#
# Rejected: `git commit` in a loop (minutes for 20,000 commits; fast-import takes
# seconds); awk's rand() (mawk and gawk give different sequences for the same seed).

function rnd() { seed = (seed * 16807) % 2147483647; return seed }
function unif() { return rnd() / 2147483647 }
function pick(n) { return rnd() % n }

function line_text(   r) {
    r = rnd()
    return sprintf("%s %s_%d(%d, %d);", verb[r % nverb], noun[int(r / 7) % nnoun], r % 977,
                   int(r / 977) % 100, pick(1000))
}

function new_content(n,   s, i) {
    s = ""
    for (i = 0; i < n; i++)
        s = s line_text() "\n"
    return s
}

# A few edits to text s: replaced, inserted and deleted lines; now and then a larger block.
function edit(s,   L, n, k, e, i, r, at, cnt, out) {
    n = split(s, L, "\n")
    if (n > 0 && L[n] == "")
        n--
    k = 1 + pick(3)
    for (e = 0; e < k; e++) {
        at = 1 + pick(n + 1)
        r = pick(10)
        if (r < 5 && n > 0) {                    # replace a line
            if (at > n) at = n
            L[at] = line_text()
        } else if (r < 8 || n < 6) {             # insert 1..5 lines
            cnt = 1 + pick(5)
            for (i = n; i >= at; i--)
                L[i + cnt] = L[i]
            for (i = 0; i < cnt; i++)
                L[at + i] = line_text()
            n += cnt
        } else {                                 # delete 1..3 lines
            cnt = 1 + pick(3)
            if (at > n) at = n
            if (at + cnt - 1 > n) cnt = n - at + 1
            for (i = at; i + cnt <= n; i++)
                L[i] = L[i + cnt]
            n -= cnt
        }
    }
    if (pick(20) == 0) {                         # a larger block at the end
        cnt = 10 + pick(30)
        for (i = 0; i < cnt; i++)
            L[++n] = line_text()
    }
    out = ""
    for (i = 1; i <= n; i++)
        out = out L[i] "\n"
    return out
}

function new_path(   d, ext) {
    nfiles_made++
    d = pick(ndirs)
    ext = exts[pick(nexts)]
    return sprintf("%s/f%05d.%s", dirs[d], nfiles_made, ext)
}

function emit_file(p, s) {
    printf "M 100644 inline %s\ndata %d\n%s\n", p, length(s), s
}

# the main branch's live files: live[1..nlive], pos[path] = its index, content[path]
function live_add(p) { live[++nlive] = p; pos[p] = nlive }
function live_del(p,   i) {
    i = pos[p]
    live[i] = live[nlive]
    pos[live[i]] = i
    delete live[nlive]
    nlive--
    delete pos[p]
}
# a file of main, the early (hot) ones more often
function hot_file(   u) {
    u = unif()
    return live[1 + int(nlive * u * u)]
}

function header(ref, a, t, msg,   tz, ae) {
    tz = tzs[a]
    ae = email[a]
    if (a == renamed_author && t < email_change)
        ae = old_email
    printf "commit %s\nmark :%d\n", ref, ++mark
    printf "author %s <%s> %d %s\n", name[a], ae, t - (pick(8) == 0 ? pick(259200) : 0), tz
    printf "committer %s <%s> %d %s\n", name[a], ae, t, tz
    printf "data %d\n%s\n", length(msg), msg
}

function subject(   s) {
    s = subj[pick(nsubj)] " " noun[pick(nnoun)]
    if (pick(4) == 0)
        s = s "\n\n" "Details: " line_text() "\n" line_text()
    return s
}

function main_commit(   a, nf, i, p, q, r, nch, seenp) {
    a = int(authors * unif() * unif())
    header("refs/heads/main", a, now, subject())
    if (main_mark) printf "from :%d\n", main_mark
    main_mark = mark
    r = pick(100)
    if (r < 14 || nlive < 50) {                   # add 1..3 files
        nf = (1 + pick(3)) * big
        for (i = 0; i < nf; i++) {
            p = new_path()
            content[p] = new_content(5 + pick(60))
            live_add(p)
            emit_file(p, content[p])
        }
    } else if (r < 17 && nlive > 300) {           # delete a file
        p = live[1 + pick(nlive)]
        printf "D %s\n", p
        live_del(p)
        delete content[p]
    } else if (r < 20 && nlive > 300) {           # rename a file, sometimes editing it
        p = live[1 + pick(nlive)]
        q = new_path()
        printf "R %s %s\n", p, q
        content[q] = content[p]
        delete content[p]
        live_del(p)
        live_add(q)
        if (pick(2) == 0) {
            content[q] = edit(content[q])
            emit_file(q, content[q])
        }
    }
    nch = (1 + pick(3) + (pick(6) == 0 ? pick(8) : 0)) * big   # edit a few files
    split("", seenp)
    for (i = 0; i < nch; i++) {
        p = hot_file()
        if (p in seenp) continue
        seenp[p] = 1
        content[p] = edit(content[p])
        emit_file(p, content[p])
    }
    print ""
}

function topic_commit(   p, i, nch, base) {
    header("refs/heads/topic", topic_author, now, subject())
    printf "from :%d\n", topic_mark
    topic_mark = mark
    if (pick(5) == 0) {
        p = new_path()
        if (!(p in tmod)) tlist[++tn] = p
        tmod[p] = 1
        tcontent[p] = new_content(5 + pick(40))
        emit_file(p, tcontent[p])
    }
    nch = 1 + pick(3)
    for (i = 0; i < nch; i++) {
        p = hot_file()
        base = (p in tcontent) ? tcontent[p] : content[p]
        if (!(p in tmod)) tlist[++tn] = p
        tmod[p] = 1
        tcontent[p] = edit(base)
        emit_file(p, tcontent[p])
    }
    print ""
}

function merge_commit(   i, p) {
    header("refs/heads/main", maintainer, now, "Merge branch 'topic-" ntopics "'")
    printf "from :%d\nmerge :%d\n", main_mark, topic_mark
    main_mark = mark
    for (i = 1; i <= tn; i++) {
        p = tlist[i]
        content[p] = tcontent[p]
        if (!(p in pos)) live_add(p)
        emit_file(p, content[p])
    }
    print ""
    in_topic = 0
}

function start_topic() {
    ntopics++
    in_topic = 1
    topic_mark = main_mark
    topic_left = 2 + pick(8)
    topic_author = int(authors * unif())
    tn = 0
    split("", tmod)
    split("", tcontent)
    split("", tlist)
}

BEGIN {
    if (commits == "") commits = 20000
    if (authors == "") authors = 30
    if (big == "") big = 1
    seed = 20240301
    nverb = split("call set get put add free init check read write parse emit load save push pop", verb, " ")
    for (i = 1; i <= nverb; i++) verb[i - 1] = verb[i]
    nnoun = split("buf node tree list map key val item ref path name size len pos arena table queue", noun, " ")
    for (i = 1; i <= nnoun; i++) noun[i - 1] = noun[i]
    nsubj = split("Fix Add Remove Refactor Update Speed_up Document Test Rename Simplify", subj, " ")
    for (i = 1; i <= nsubj; i++) { subj[i - 1] = subj[i]; gsub("_", " ", subj[i - 1]) }
    nexts = split("c h c c md txt py", exts, " ")
    for (i = 1; i <= nexts; i++) exts[i - 1] = exts[i]
    split("Ann Bob Carol Dave Eve Frank Grace Heidi Ivan Judy Mallory Niaj Olivia Peggy Rupert Sybil Trent Victor Walter Xena Yusuf Zoe Amir Bea Chen Dara Emil Fay Gus Hana", fn_, " ")
    split("Archer Baker Cole Dunn Ellis Ford Gray Hale Irwin Jones Kerr Lane Moss Nash Orr Page Quinn Reed Shaw Tate Underwood Vance Webb Xu Young Zeller Abbott Brooks Cruz Diaz", ln_, " ")
    split("+0000 +0100 -0500 +0200 -0800 +0530 +0900 -0300 +1000 +0000", tzl, " ")
    for (a = 0; a < authors; a++) {
        name[a] = fn_[a % 30 + 1] " " ln_[(a * 7) % 30 + 1]
        email[a] = tolower(fn_[a % 30 + 1] "." ln_[(a * 7) % 30 + 1]) "@example.com"
        tzs[a] = tzl[a % 10 + 1]
    }
    maintainer = 0
    renamed_author = 3 % authors
    old_email = "dave@old-employer.example"
    ndirs = 0
    for (i = 0; i < 12; i++)
        for (j = 0; j < 8; j++)
            dirs[ndirs++] = sprintf("%s/mod%02d", (i < 8 ? "src" : (i < 10 ? "lib" : "docs")), i * 8 + j)
    now = 1546300800                      # 2019-01-01T00:00:00Z
    email_change = now + 200 * 86400

    # the root commit: a .mailmap and ~300 files
    header("refs/heads/main", maintainer, now, "Initial import")
    main_mark = mark
    mm = sprintf("%s <%s> <%s>\n", name[renamed_author], email[renamed_author], old_email)
    emit_file(".mailmap", mm)
    for (i = 0; i < 300; i++) {
        p = new_path()
        content[p] = new_content(5 + pick(60))
        live_add(p)
        emit_file(p, content[p])
    }
    print ""

    for (c = 2; c <= commits - 3; c++) {
        now += 60 * (1 + pick(150))
        if (in_topic && topic_left == 0)
            merge_commit()
        else if (in_topic && pick(100) < 45) {
            topic_commit()
            topic_left--
        } else {
            if (!in_topic && c > 50 && c < commits - 20 && pick(100) < 4)
                start_topic()
            main_commit()
        }
        if (c % 2000 == 0)
            printf "tag v%d.%d\nfrom :%d\ntagger %s <%s> %d +0000\ndata 12\nRelease tag\n\n", \
                int(c / 10000), (c / 2000) % 5, main_mark, name[maintainer], email[maintainer], now
    }
    # a last topic, left unmerged: reachable from refs/heads/topic but not from HEAD
    start_topic()
    for (i = 0; i < 3; i++) {
        now += 600
        topic_commit()
    }
    printf "reset refs/heads/main\nfrom :%d\n\n", main_mark
}
