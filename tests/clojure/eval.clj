;; eval.clj: the Clojure side of the differential test (run.sh). Reads one expression a
;; line from the file named by the first argument and prints, for each, one line: the
;; printed value (pr-str) or "ERROR <exception class>". Each expression is evaluated in
;; a fresh namespace with the aliases quarry knows (str, string, set, walk), with a time
;; limit, and the whole corpus runs in this one JVM. Printing *out* goes nowhere (the
;; corpus prints through with-out-str).
(require '[clojure.string] '[clojure.set] '[clojure.walk])

(defn- eval-line [i line]
  (let [ns-sym (symbol (str "diff" i))
        ns (create-ns ns-sym)]
    (binding [*ns* ns]
      (refer-clojure)
      (alias 'str 'clojure.string)
      (alias 'string 'clojure.string)
      (alias 'set 'clojure.set)
      (alias 'walk 'clojure.walk)
      (let [task (future
                   (binding [*ns* ns *out* (java.io.StringWriter.)]
                     (try
                       (let [v (eval (read-string line))]
                         ;; a var prints in quarry's one namespace, user
                         (if (var? v) (str "#'user/" (.sym ^clojure.lang.Var v)) (pr-str v)))
                       (catch Throwable e
                         (str "ERROR " (.getName (class e)))))))
            r (deref task 10000 "ERROR timeout")]
        (remove-ns ns-sym)
        (clojure.string/replace r "\n" "\\n")))))

(let [lines (clojure.string/split-lines (slurp (first *command-line-args*)))]
  (doseq [[i line] (map-indexed vector lines)]
    (println (eval-line i line)))
  (shutdown-agents))
