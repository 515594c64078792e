;; query_nbb.cljs -- the records benchmark query in ClojureScript under nbb.
;;
;; Usage: nbb query_nbb.cljs commits.json query.clj
;; Reads the JSON array with js/JSON.parse + js->clj :keywordize-keys (not
;; timed), then evaluates query.clj -- the very file quarry runs -- and times
;; only that evaluation with js/performance.now. Prints the answer as JSON
;; (js/JSON.stringify of clj->js) on stdout and `time_ms: N` on stderr.
;;
;; quarry has three built-ins that Clojure lacks; they are defined here in
;; plain Clojure so query.clj runs unchanged:
;;   data/commits        the records vector
;;   (sum-by :k coll)    sum of (:k x)
;;   (avg-by :k coll)    average of (:k x), as a double
;;   (sort-by k :desc c) stable sort, descending by k
(ns query-nbb
  (:refer-clojure :exclude [sort-by])
  (:require ["fs" :as fs]))

(defn sort-by
  ([keyfn coll] (clojure.core/sort-by keyfn coll))
  ([keyfn order coll]
   (case order
     :desc (clojure.core/sort-by keyfn (fn [a b] (compare b a)) coll)
     :asc  (clojure.core/sort-by keyfn coll)
     ;; a comparator fn, as in Clojure
     (clojure.core/sort-by keyfn order coll))))

(defn sum-by [k coll] (reduce (fn [acc x] (+ acc (k x))) 0 coll))

(defn avg-by [k coll] (/ (sum-by k coll) (count coll)))

(let [[data-path query-path] *command-line-args*
      commits (js->clj (js/JSON.parse (fs/readFileSync data-path "utf8"))
                       :keywordize-keys true)
      query-src (str (fs/readFileSync query-path "utf8"))]
  (create-ns 'data)
  (intern 'data 'commits commits)
  (let [t0 (js/performance.now)
        answer (doall (load-string query-src))
        t1 (js/performance.now)]
    (println (js/JSON.stringify (clj->js answer)))
    (binding [*print-fn* *print-err-fn*]
      (println (str "time_ms: " (.toFixed (- t1 t0) 3))))))
