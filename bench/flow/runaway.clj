;; The same runaway as runaway.flow, in quarry lisp: a loop in a loop conj-ing onto one
;; vector. run.sh gives it the same memory cap.
(loop [i 0 out []]
  (if (< i 1000000)
    (recur (inc i) (loop [j 0 o out]
                     (if (< j 1000000) (recur (inc j) (conj o j)) o)))
    (count out)))
