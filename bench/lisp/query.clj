;; query.clj -- the records benchmark query for quarry's Lisp.
;;
;; Run by run.sh as:
;;   build/quarry lisp bench/lisp/query.clj --data .data/commits_obj.json --format json --stats
;; `data/commits` is the "commits" array of the --data JSON object (records
;; become maps with keyword keys). quarry prints the value of the last form
;; as JSON on stdout and a stats line {"read_ms":..,"eval_ms":..} on stderr;
;; run.sh takes eval_ms (best of 5 runs) as the query time.
;;
;; The same file runs unchanged under nbb (see query_nbb.cljs, which supplies
;; data/commits, sum-by, avg-by and the `(sort-by k :desc coll)` form), so
;; this is plain, idiomatic Clojure plus those three quarry built-ins.
;;
;; Query: keep files >= 3 and additions > 10; stable sort by timestamp desc;
;; group by author; per author count, sum additions, sum deletions, average
;; files and latest (first timestamp in the group, i.e. the max); top 10 by
;; additions desc, then author asc.

(->> data/commits
     (filter (fn [c] (and (>= (:files c) 3) (> (:additions c) 10))))
     (sort-by :timestamp :desc)
     (group-by :author)
     (map (fn [[author cs]]
            {:author    author
             :commits   (count cs)
             :additions (sum-by :additions cs)
             :deletions (sum-by :deletions cs)
             :avg_files (avg-by :files cs)
             :latest    (:timestamp (first cs))}))
     (sort-by (juxt (fn [row] (- (:additions row))) :author))
     (take 10))
