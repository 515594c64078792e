#!/usr/bin/env python3
"""gen_corpus.py: writes corpus.txt, the expressions the differential test (run.sh) gives
to real Clojure and to quarry. One expression a line, each independent of the others.

Expressions are built from templates over varied data (numbers, strings, records, nested
maps), the way programs written by models process data: seq functions, maps, sets,
strings, regexes, reduce, group-by, sort-by, destructuring, threading macros, numbers
and their printing, transducers, sorted collections, and errors. The generator is
seeded, so the corpus is the same on every run; run it again only to change the corpus:

    python3 tests/clojure/gen_corpus.py > tests/clojure/corpus.txt
"""
import random

R = random.Random(20261124)
out = []


def add(e):
    e = " ".join(e.split())
    if e not in seen:
        seen.add(e)
        out.append(e)


seen = set()

INTS = [0, 1, -1, 2, 3, 7, -7, 10, 13, 42, 100, -250, 1000, 65535, 123456789]
DBLS = ["0.5", "1.5", "-2.25", "3.0", "0.1", "10.75", "1e3", "2.5e-3", "-0.0", "100.0"]
VECS = ["[]", "[1]", "[1 2 3]", "[3 1 2]", "[5 4 3 2 1]", "[1 1 2 3 5 8 13]", "[-3 0 3]",
        "[10 20 30 40]", "[2 4 6 8 10 12]", "[7 7 7]", "[1 2 2 3 3 3]", "[9 -2 4 0 -8 6]",
        "(range 10)", "(range 1 20 3)", "'(4 5 6)", "[100 50 25 12]"]
STRS = ['""', '"hello"', '"Hello World"', '"  padded  "', '"a,b,c"', '"one two  three"',
        '"CamelCaseText"', '"x-y-z"', '"line1\\nline2"', '"abc123def45"', '"MiXeD"',
        '"the quick brown fox"', '"a"', '"2026-11-24"', '"key=value"', '"  "']
KWS = [":a", ":b", ":name", ":age", ":x"]
PEOPLE = ('[{:name "ana" :age 31 :dept :eng :salary 120} {:name "bo" :age 25 :dept :ops :salary 80} '
          '{:name "cy" :age 42 :dept :eng :salary 150} {:name "di" :age 25 :dept :sales :salary 90} '
          '{:name "ed" :age 37 :dept :ops :salary 85}]')
COMMITS = ('[{:sha "a1" :author "ines" :files ["src/a.c" "src/b.c"] :added 10 :deleted 2} '
           '{:sha "b2" :author "jo" :files ["docs/x.md"] :added 3 :deleted 0} '
           '{:sha "c3" :author "ines" :files ["src/a.c"] :added 7 :deleted 7} '
           '{:sha "d4" :author "kai" :files ["src/c.c" "test/t.c" "docs/y.md"] :added 40 :deleted 12} '
           '{:sha "e5" :author "jo" :files [] :added 0 :deleted 5}]')
NESTED = '{:user {:name "ana" :roles [:admin :dev] :address {:city "Oslo" :zip "0150"}} :active true}'
MAPS = ["{}", "{:a 1}", "{:a 1 :b 2}", "{:a 1 :b 2 :c 3}", '{:x 10 :y "s" :z nil}',
        "{1 :one 2 :two}", '{"k" 1 "j" 2}', "{:a {:b {:c 1}}}", "{:n 5 :m [1 2]}"]
SETS = ["#{}", "#{1}", "#{1 2 3}", "#{2 3 4}", "#{:a :b}", '#{"x" "y"}', "#{1 3 5 7}"]
PREDS = ["odd?", "even?", "pos?", "neg?", "zero?", "#(> % 2)", "#(< % 5)", "(fn [x] (= x 3))",
         "(complement even?)", "#(zero? (mod % 3))"]
FNS1 = ["inc", "dec", "-", "#(* % %)", "#(* 2 %)", "str", "(fn [x] (+ x 10))", "(partial * 3)",
        "(comp inc inc)", "#(quot % 2)"]

# ---- numbers ----
for _ in range(60):
    a, b, c = R.choice(INTS), R.choice(INTS), R.choice(INTS)
    op = R.choice(["+", "-", "*", "max", "min"])
    add(f"({op} {a} {b} {c})")
for _ in range(30):
    a, b = R.choice(INTS), R.choice(INTS)
    op = R.choice(["quot", "rem", "mod"])
    add(f"({op} {a} {b})")
for _ in range(30):
    a, b = R.choice(DBLS), R.choice(INTS + DBLS)
    op = R.choice(["+", "-", "*", "max", "min", "<", ">", "<=", "=="])
    add(f"({op} {a} {b})")
for x in INTS + DBLS:
    for f in ["inc", "dec", "abs", "zero?", "pos?", "neg?", "-", "double", "int", "even?"]:
        if f == "even?" and "." in str(x) or f == "even?" and "e" in str(x):
            continue
        if R.random() < 0.45:
            add(f"({f} {x})")
for a, b in [(1, 2), (10, 4), (7, 7), (-9, 3), (1, 3), (2.0, 4), (0, 5), (22, 7), (100, 8)]:
    add(f"(/ {a} {b})")
for e in ["(/ 1 0)", "(/ 1.0 0)", "(quot 7 0)", "(mod -7 3)", "(rem -7 3)", "(mod 7 -3)",
          "(* 1.0 1e308 10)", "(Math/sqrt 16)", "(Math/pow 2 10)", "(Math/abs -3.5)",
          "(Math/floor 2.7)", "(Math/ceil 2.1)", "(Math/round 2.5)", "(Math/round -2.5)",
          "(int 3.99)", "(long -3.99)", "(double 7)", "(float 1)", "(= 1 1.0)", "(== 1 1.0)",
          "(= 0.1 0.1)", "(+ 0.1 0.2)", "(* 3 0.1)", "(/ 10 4.0)", "(str 1.0)", "(str 100.0)",
          "(str 1e21)", "1e-7", "123456789.125", "(- 0.0)", "(max 1 2.0)", "(min 1.0 1)",
          "(Integer/parseInt \"42\")", "(Long/parseLong \"-17\")", "(Double/parseDouble \"2.5\")",
          "(parse-long \"12\")", "(parse-long \"1x\")", "(parse-double \"3.25\")",
          "(parse-boolean \"true\")", "(parse-boolean \"nope\")", "(Integer/parseInt \"x\")",
          "(inc 9223372036854775807)", "(* 4611686018427387904 2)", "(- -9223372036854775808 1)",
          "(unchecked-add 1 2)", "(bit-and 12 10)", "(bit-or 12 10)", "(bit-xor 12 10)",
          "(bit-shift-left 1 10)", "(bit-shift-right 1024 3)", "(bit-not 0)",
          "(rem 10.5 3)", "(quot 10.5 3)", "(mod 10.5 3)", "(num 5)", "(number? 1.5)",
          "(integer? 1.0)", "(float? 1.0)", "(double? 2)", "(rational? 1)", "(NaN? ##NaN)",
          "(infinite? ##Inf)", "(pos-int? 5)", "(nat-int? 0)", "(neg-int? -1)", "(pos-int? 1.0)",
          "(abs -7)", "(abs -7.5)", "(Math/max 3 9)", "(Math/min -1 4)", "Math/PI",
          "(* 2 Math/E)", "(compare 1 2)", "(compare 2.0 1)", "(compare \"b\" \"a\")",
          "(compare :a :b)", "(compare [1 2] [1 3])", "(compare nil 1)", "(int \\a)",
          "(boolean 0)", "(boolean nil)", "(boolean \"\")", "(true? 1)", "(false? false)",
          "(not 0)", "(not nil)", "(some? false)", "(nil? nil)"]:
    add(e)

# ---- strings ----
SFN1 = ["str/upper-case", "str/lower-case", "str/capitalize", "str/trim", "str/triml",
        "str/trimr", "str/blank?", "str/reverse", "count", "str/split-lines", "seq", "first",
        "last", "vec", "set", "frequencies", "empty?", "not-empty", "str/trim-newline"]
for s in STRS:
    for f in SFN1:
        if R.random() < 0.5:
            add(f"({f} {s})")
for s in STRS:
    for sub in ['"o"', '"a"', '"-"', '"ll"', '" "', '"x"']:
        f = R.choice(["str/includes?", "str/starts-with?", "str/ends-with?", "str/index-of",
                      "str/last-index-of"])
        if R.random() < 0.35:
            add(f"({f} {s} {sub})")
for s in STRS:
    for a, b in [(0, 1), (1, 3), (2, None), (0, 0), (3, 2), (0, 5)]:
        if R.random() < 0.3:
            add(f"(subs {s} {a}{'' if b is None else ' ' + str(b)})")
for e in ['(str/split "a,b,,c" #",")', '(str/split "a b  c" #"\\s+")', '(str/split "a1b2c3" #"\\d")',
          '(str/split "k=v" #"=" 2)', '(str/join ", " ["x" "y" "z"])', '(str/join [1 2 3])',
          '(str/join "-" (map inc [1 2 3]))', '(str/replace "hello world" "o" "0")',
          '(str/replace "a1b22c333" #"\\d+" "#")', '(str/replace-first "aaa" "a" "b")',
          '(str/replace "John Smith" #"(\\w+) (\\w+)" "$2, $1")', '(str/upper-case (name :kw))',
          '(str "a" 1 nil :k 2.5 [1 2] {:a 1})', '(str)', '(str nil)', '(pr-str "q" 1 nil)',
          '(prn-str [1 "2"])', '(print-str "a" "b")', '(apply str (reverse "stressed"))',
          '(apply str (interpose "," ["a" "b"]))', '(str/escape "a<b" {\\< "&lt;"})',
          '(format "%d items" 3)', '(format "%s=%s" "k" 1)', '(format "%.2f" 3.14159)',
          '(format "%5d|" 42)', '(format "%-5s|" "ab")', '(format "%x" 255)', '(format "%05.1f" 2.5)',
          '(name :foo)', '(name "bar")', '(keyword "abc")', '(symbol "s")', '(str (symbol "x"))',
          '(keyword "a b")', '(subs "hello" 10)', '(str/join "," nil)', '(count nil)',
          '(str/lower-case nil)', '(.toUpperCase "abc")', '(.length "four")', '(.indexOf "hello" "l")',
          '(.substring "hello" 1 3)', '(.trim "  x ")', '(.startsWith "prefix" "pre")',
          '(.contains "haystack" "st")', '(.replace "a.b.c" "." "/")', '(.endsWith "file.md" ".md")',
          '(char 65)', '(str (char 97) (char 98))', '(seq "")', '(str/split "" #",")',
          '(str/blank? nil)', '(str/includes? "abc" "")', '(compare "apple" "apricot")',
          '(sort ["pear" "Apple" "fig" "banana"])', '(sort-by count ["ccc" "a" "bb"])',
          '(map str/upper-case ["a" "b"])', '(mapv count ["" "ab" "abc"])',
          '(str/join " " (map str/capitalize (str/split "the quick fox" #" ")))',
          '(->> "a-b-c" (re-seq #"\\w") (map str/upper-case) (str/join))',
          '(frequencies (str/split "a b a c b a" #" "))', '(group-by count ["a" "bb" "cc" "d"])',
          '(str/split-lines "a\\nb\\r\\nc")', '(str/starts-with? nil "a")', '(subs "abc" -1)',
          '(str/index-of "abcabc" "c" 3)', '(str/reverse "")', '(str/capitalize "hELLO")']:
    add(e)

# ---- regexes ----
RX = ['#"\\d+"', '#"[a-z]+"', '#"(\\w+)@(\\w+)\\.com"', '#"^\\s*$"', '#"(\\d{4})-(\\d{2})-(\\d{2})"',
      '#"[aeiou]"', '#"o+"', '#"(?i)hello"', '#"x*"', '#"(a)(b)?"']
RS = ['"abc 123 def 45"', '"mail: ana@example.com, bo@test.com"', '"2026-11-24"', '"   "',
      '"Hello hello HELLO"', '"foo"', '"ab a"', '"no digits"', '"boooom"', '""']
for rx in RX:
    for s in RS:
        f = R.choice(["re-find", "re-matches", "re-seq"])
        if R.random() < 0.3:
            add(f"({f} {rx} {s})")
for e in ['(re-find #"(\\d+)-(\\d+)" "pages 10-20")', '(re-matches #"\\d+" "123")', '(re-matches #"\\d+" "123a")',
          '(re-seq #"\\w+" "one, two; three")', '(count (re-seq #"a" "banana"))', '(re-find #"z" "abc")',
          '(re-pattern "a.c")', '(re-find (re-pattern "\\\\d+") "ab12")', '(str #"a+b")',
          '(map second (re-seq #"(\\w)=(\\d)" "a=1 b=2"))', '(str/replace "aaa" #"a" "$0$0")',
          '(re-matches #"(\\w+)\\.(\\w+)" "file.txt")', '(let [[_ y m] (re-find #"(\\d+)/(\\d+)" "on 2026/11")] [y m])',
          '(filter #(re-find #"^a" %) ["ab" "ba" "ac"])', '(remove (partial re-find #"\\d") ["a1" "b" "c2"])',
          '(str/split "CamelCaseWord" #"(?=[A-Z])")', '(re-seq #"[A-Z][a-z]*" "CamelCaseWord")',
          '(re-find #"(?<year>\\d{4})" "in 1999")', '(re-matches #"[a-z]+" nil)']:
    add(e)

# ---- sequences ----
for v in VECS:
    for f in ["first", "second", "last", "rest", "next", "butlast", "count", "reverse", "sort",
              "distinct", "frequencies", "empty?", "seq", "vec", "set", "(partial apply +)",
              "(partial apply max)", "dedupe", "(partial reduce +)", "(partial reduce *)",
              "peek", "(partial into [])", "(partial into '())", "(partial take-last 2)",
              "(partial drop-last 1)", "(partial sort >)", "shuffle-free", "not-empty"]:
        if f == "shuffle-free":
            continue
        if R.random() < 0.25:
            add(f"({f} {v})")
for v in VECS:
    for _ in range(3):
        k = R.choice(["map", "filter", "remove", "take-while", "drop-while", "keep", "group-by",
                      "partition-by", "sort-by", "some", "every?", "not-any?", "split-with",
                      "map-indexed", "keep-indexed", "mapcat", "count-filter", "min-key", "max-key"])
        if k in ("filter", "remove", "take-while", "drop-while", "group-by", "partition-by",
                 "some", "every?", "not-any?", "split-with"):
            add(f"({k} {R.choice(PREDS)} {v})")
        elif k in ("map", "sort-by", "keep"):
            add(f"({k} {R.choice(FNS1)} {v})")
        elif k == "map-indexed":
            add(f"(map-indexed vector {v})")
        elif k == "keep-indexed":
            add(f"(keep-indexed (fn [i x] (when (even? i) x)) {v})")
        elif k == "mapcat":
            add(f"(mapcat (fn [x] [x x]) {v})")
        elif k == "count-filter":
            add(f"(count (filter {R.choice(PREDS)} {v}))")
        else:
            if v not in ("[]",):
                add(f"(apply {k} - {v})")
for v in VECS:
    for _ in range(2):
        n = R.choice([0, 1, 2, 3, 5, 10, -1])
        f = R.choice(["take", "drop", "partition", "partition-all", "take-nth", "split-at",
                      "nthrest", "nthnext"])
        if f in ("partition", "partition-all", "take-nth") and n <= 0:
            n = 2
        add(f"({f} {n} {v})")
for v in VECS[:10]:
    for w in VECS[3:12]:
        if R.random() < 0.12:
            f = R.choice(["concat", "interleave", "(partial map +)", "(partial map vector)",
                          "zipmap", "(partial mapv *)"])
            add(f"({f} {v} {w})")
for e in ["(nth [1 2 3] 1)", "(nth [1 2 3] 5)", "(nth [1 2 3] 5 :none)", "(get [1 2 3] 5)",
          "([10 20 30] 2)", "(cons 0 [1 2])", "(conj [1 2] 3 4)", "(conj '(1 2) 3 4)",
          "(conj nil 1)", "(into [] '(1 2))", "(into '() [1 2 3])", "(list 1 2 3)", "(list)",
          "(vector 1 2)", "(vec nil)", "(seq [])", "(seq nil)", "(empty [1 2])", "(range 5)",
          "(range 5 0 -1)", "(range 0 1 0.25)", "(range 3 3)", "(take 5 (range))",
          "(take 4 (iterate #(* 2 %) 1))", "(take 5 (cycle [1 2]))", "(take 3 (repeat :x))",
          "(repeat 3 \"a\")", "(repeatedly 3 (constantly 1))", "(interpose :sep [1 2 3])",
          "(flatten [1 [2 [3 [4]]] 5])", "(flatten [[] [[]]])", "(partition 2 1 [1 2 3 4])",
          "(partition 3 3 [:pad] [1 2 3 4])", "(reductions + [1 2 3 4])", "(reductions * 1 [2 3])",
          "(reduce + [])", "(reduce max [3 9 2])", "(reduce (fn [a x] (conj a (* x x))) [] [1 2 3])",
          "(reduce (fn [acc x] (if (> x 2) (reduced acc) (+ acc x))) 0 [1 2 3 4])",
          "(reduce-kv (fn [m k v] (assoc m v k)) {} {:a 1 :b 2})",
          "(apply + 1 2 [3 4])", "(apply str \"a\" [\"b\" \"c\"])", "(apply max [])",
          "(some #{3} [1 2 3])", "(some :a [{:b 1} {:a 2}])", "(every? number? [])",
          "(first (filter even? [1 3 6 8]))", "(last [])", "(rest nil)", "(next [1])",
          "(sort-by :n [{:n 3} {:n 1}])", "(sort-by - [3 1 2])", "(sort [3 1.5 2])",
          "(sort-by first [[2 :b] [1 :a] [2 :a]])", "(sort (comp - compare) [1 3 2])",
          "(sort-by identity > [1 3 2])", "(distinct [1 1.0 2])", "(frequencies [:a :b :a])",
          "(group-by odd? [1 2 3 4 5])", "(partition-by odd? [1 3 2 4 5])", "(split-with neg? [-1 -2 3 -4])",
          "(zipmap [:a :b] [1 2 3])", "(zipmap [] [])", "(interleave [1 2] [:a :b :c])",
          "(mapv inc #{})", "(map + [1 2] [10 20] [100 200])", "(map (fn [[k v]] (str k v)) {:a 1})",
          "(map first [[1 2] [3 4]])", "(mapcat reverse [[1 2] [3 4]])", "(into #{} [1 2 1])",
          "(into {} [[:a 1] [:b 2]])", "(into [] {:a 1})", "(count {:a 1 :b 2})",
          "(max-key count \"a\" \"abc\" \"ab\")", "(min-key abs -3 2 -1)", "(last (sort [5 3 8]))",
          "(take-last 2 [1 2 3])", "(drop-last [1 2 3])", "(subvec [1 2 3 4] 1 3)",
          "(subvec [1 2] 3)", "(rseq [1 2 3])", "(peek [1 2 3])", "(pop [1 2 3])", "(pop '(1 2 3))",
          "(pop [])", "(first {:a 1})", "(second \"abc\")", "(ffirst [[1 2]])", "(nfirst [[1 2 3]])",
          "(not-empty [])", "(empty? \"\")", "(count [nil nil])", "(vec (range 3))",
          "(doall (map inc [1 2]))", "(dorun (map inc [1 2]))", "(identity [1])",
          "(some-fn even? neg?)", "((some-fn even? neg?) 3)", "((every-pred pos? odd?) 3)",
          "((juxt first last count) [1 2 3])", "((fnil inc 0) nil)", "((constantly 7) 1 2)",
          "((comp str inc) 1)", "((partial + 1 2) 3)", "((complement nil?) 1)", "(map-indexed (fn [i x] [i x]) \"ab\")",
          "(index-of-missing)", "(take 3 (drop 2 (range 10)))", "(nthnext [1 2] 5)",
          "(sequence [1 2])", "(list* 1 2 [3 4])", "(concat)", "(concat [1] nil [2])",
          "(interpose \", \" [])", "(distinct? 1 2 3)", "(distinct? 1 2 1)", "(seq? '(1))",
          "(seq? [1])", "(vector? [1])", "(list? '(1))", "(coll? {})", "(sequential? [])",
          "(sequential? #{})", "(map? {})", "(set? #{})", "(associative? [])", "(counted? [1])",
          "(ifn? :a)", "(fn? inc)", "(fn? :a)", "(string? \"\")", "(keyword? :a)", "(symbol? 'a)",
          "(char? \\a)", "(boolean? false)", "(int? 1)", "(every? even? nil)", "(empty? nil)"]:
    if e != "(index-of-missing)":
        add(e)

# ---- maps ----
for m in MAPS:
    for f in ["keys", "vals", "count", "(partial into [])", "seq", "empty?", "(partial into {})",
              "(fn [m] (get m :a))", "(fn [m] (get m :zz :default))", "(fn [m] (:b m))",
              "(fn [m] (contains? m :a))", "(fn [m] (find m :a))", "(fn [m] (assoc m :new 0))",
              "(fn [m] (dissoc m :a))", "(fn [m] (select-keys m [:a :x]))",
              "(fn [m] (merge m {:a 100}))", "(fn [m] (update m :a (fnil inc 0)))",
              "(fn [m] (reduce-kv (fn [a k v] (conj a k)) [] m))", "(fn [m] (into (sorted-map) m))",
              "(fn [m] (update-vals m str))", "(fn [m] (zipmap (vals m) (keys m)))",
              "(fn [m] (map key m))", "(fn [m] (get-in m [:a :b]))", "(fn [m] (assoc-in m [:p :q] 1))",
              "(fn [m] (merge-with + m {:a 1}))", "(fn [m] (= m {:a 1}))"]:
        if R.random() < 0.28:
            add(f"({f} {m})")
for e in [f"(get-in {NESTED} [:user :address :city])", f"(get-in {NESTED} [:user :roles 1])",
          f"(get-in {NESTED} [:user :missing :x] :none)", f"(update-in {NESTED} [:user :roles] conj :ops)",
          f"(assoc-in {NESTED} [:user :address :zip] \"0151\")", f"(-> {NESTED} :user :name)",
          f"(let [{{{{:keys [name roles]}} :user}} {NESTED}] [name (count roles)])",
          f"(keys (:user {NESTED}))", f"(dissoc-in-missing)", f"(select-keys (:user {NESTED}) [:name])",
          f"(update {NESTED} :active not)", f"(contains? (:user {NESTED}) :roles)",
          "(assoc {} :a 1 :b 2)", "(assoc [1 2] 0 :x)", "(assoc [1 2] 2 :x)", "(assoc [1 2] 5 :x)",
          "(dissoc {:a 1 :b 2} :a :b)", "(merge {:a 1} nil {:b 2})", "(merge)", "(merge nil)",
          "(merge-with into {:a [1]} {:a [2] :b [3]})", "(merge-with + {:a 1} {:a 2} {:a 3})",
          "(update {:a 1} :a + 10)", "(update {} :a conj 1)", "(update-in {} [:a :b] (fnil inc 0))",
          "(get {:a nil} :a :default)", "(get nil :a)", "(:a {:a 1})", "(:a nil :d)", "({:a 1} :a)",
          "(#{1 2} 2)", "(get #{1 2} 3)", "(find {:a 1} :b)", "(key (first {:a 1}))",
          "(val (first {:a 1}))", "(keys {})", "(vals {})", "(zipmap [:a :b :c] (range))",
          "(into {} (map (fn [x] [x (* x x)]) [1 2 3]))", "(into {} (filter (comp odd? val) {:a 1 :b 2}))",
          "(reduce (fn [m [k v]] (assoc m k (inc v))) {} {:a 1 :b 2})",
          "(apply merge-with + [{:a 1} {:a 2 :b 1}])", "(update-keys {:a 1} name)",
          "(update-vals {:a 1 :b 2} inc)", "(group-by :k [{:k 1 :v 1} {:k 2} {:k 1 :v 3}])",
          "(frequencies (map :k [{:k 1} {:k 2} {:k 1}]))", "(map :a [{:a 1} {:b 2}])",
          "(mapv #(select-keys % [:a]) [{:a 1 :b 2}])", "(sort-by key {:b 2 :a 1})",
          "(sort-by val > {:b 2 :a 1 :c 3})", "(into (sorted-map) {:b 2 :a 1})",
          "(sorted-map :z 1 :a 2 :m 3)", "(sorted-map-missing)", "(keys (sorted-map 3 :c 1 :a 2 :b))",
          "(assoc (sorted-map :b 1) :a 2)", "(count (hash-map :a 1 :a 2))", "(hash-map :a 1 :b 2)",
          "(array-map :b 1 :a 2)", "(= {:a 1 :b 2} {:b 2 :a 1})", "(= {:a 1} {:a 1.0})",
          "(get {1 :int} 1.0)", "(get {[1 2] :v} [1 2])", "(get {'(1 2) :v} [1 2])",
          "(assoc nil :a 1)", "(conj {:a 1} [:b 2])", "(conj {:a 1} {:b 2 :c 3})", "(into {:a 1} {:a 2})",
          "(map (juxt key val) {:a 1})", "(empty {:a 1})", "(min-key val [:a 3] [:b 1])",
          "(->> {:a 1 :b 2 :c 3} (filter (fn [[k v]] (odd? v))) (map key) sort)",
          "(reduce-kv (fn [acc k v] (+ acc v)) 0 {:a 1 :b 2})", "(update {:n 1} :n * 2 3)",
          "(assoc-in {} [:a 0] 1)", "(assoc-in {:a [1 2]} [:a 0] 9)", "(get-in [[1 2] [3 4]] [1 0])",
          "(update-in [[1 2]] [0 1] inc)", "(dissoc {:a 1} :b)", "(select-keys {:a 1} [])",
          "(contains? [1 2 3] 1)", "(contains? [1 2 3] 3)", "(contains? #{nil} nil)", "(contains? \"abc\" 1)",
          "(walk/keywordize-keys {\"a\" 1 \"b\" {\"c\" 2}})", "(walk/stringify-keys {:a 1})",
          "(walk/postwalk #(if (number? %) (inc %) %) [1 [2 {:a 3}]])",
          "(walk/prewalk #(if (keyword? %) (name %) %) {:a [:b]})"]:
    if "missing" not in e:
        add(e)

# ---- sets ----
for a in SETS:
    for b in SETS:
        if R.random() < 0.14:
            f = R.choice(["set/union", "set/intersection", "set/difference", "set/subset?",
                          "set/superset?", "="])
            add(f"({f} {a} {b})")
for e in ["(conj #{1 2} 2 3)", "(disj #{1 2 3} 2 4)", "(contains? #{:a} :a)", "(count #{1 2})",
          "(set [3 1 3])", "(set nil)", "(into #{} \"hello\")", "(set/union)", "(set/union #{1} nil)",
          "(set/map-invert {:a 1 :b 2})", "(set/rename-keys {:a 1 :b 2} {:a :x})",
          "(set/project #{{:a 1 :b 2} {:a 1 :b 3}} [:a])", "(set/select even? #{1 2 3 4})",
          "(set/index #{{:k 1 :v 1} {:k 1 :v 2}} [:k])", "(set/join #{{:id 1 :n \"a\"}} #{{:id 1 :s 5}})",
          "(set/join #{{:a 1}} #{{:b 1}} {:a :b})", "(set/rename #{{:a 1}} {:a :b})",
          "(sorted-set 3 1 2)", "(conj (sorted-set 5 1) 3)", "(disj (sorted-set 1 2 3) 2)",
          "(sort #{3 1 2})", "(sort (set/union #{1 5} #{3}))", "(= #{1 2} #{2 1})", "(#{:a :b} :c)",
          "(filter #{1 3} [1 2 3 4])", "(remove #{:x} [:x :y :x])", "(some #{:b :c} [:a :c])",
          "(reduce conj #{} [1 2 2])", "(count (set (map #(mod % 3) (range 10))))",
          "(set/difference #{1 2 3} #{2} #{3})", "(set/intersection #{1 2} #{2 3} #{2 4})"]:
    add(e)

# ---- binding forms, control flow, threading, destructuring ----
for _ in range(40):
    a, b, c = R.choice(INTS[:10]), R.choice(INTS[:10]), R.choice(INTS[:10])
    t = R.choice([
        f"(let [x {a} y {b}] (if (> x y) (- x y) (+ x y)))",
        f"(let [[x y & more] [{a} {b} {c} 4]] [x y more])",
        f"(let [{{:keys [a b] :or {{b {c}}}}} {{:a {a}}}] [a b])",
        f"(loop [i 0 acc []] (if (< i {abs(a) % 6}) (recur (inc i) (conj acc (* i {b}))) acc))",
        f"(cond (< {a} 0) :neg (zero? {a}) :zero (< {a} 10) :small :else :big)",
        f"(case {a} 0 :zero 1 :one (2 3) :few :many)",
        f"(-> {a} (+ {b}) (* 2) str)",
        f"(->> [{a} {b} {c}] (map inc) (filter odd?) (reduce +))",
        f"(for [x (range {abs(a) % 4}) y [{b} {c}]] [x y])",
        f"(for [x [{a} {b} {c}] :when (odd? x)] (* x x))",
        f"(if-let [x (first (filter pos? [{a} {b}]))] (* 2 x) :none)",
        f"(when-let [v (seq (filter neg? [{a} {b} {c}]))] (count v))",
        f"(let [f (fn [& xs] (apply + xs))] (f {a} {b} {c}))",
        f"(let [f (fn ([x] (f x 1)) ([x y] (* x y)))] 1)",
        f"((fn fact [n] (if (<= n 1) 1 (* n (fact (dec n))))) {abs(a) % 12})",
        f"(letfn [(ev? [n] (if (zero? n) true (od? (dec n)))) (od? [n] (if (zero? n) false (ev? (dec n))))] (ev? {abs(a) % 20}))",
        f"(as-> {a} x (inc x) (* x x) (- x 1))",
        f"(cond-> {a} (odd? {a}) inc (pos? {b}) (* 10))",
        f"(some-> {{:a {{:b {a}}}}} :a :b inc)",
        f"(condp = {a} 1 :one 2 :two :other)",
        f"(let [[a [b c]] [{a} [{b} {c}]]] (+ a b c))",
        f"(when (> {a} {b}) :bigger)",
        f"(if-not (= {a} {b}) :differ :same)",
        f"(and {a} {b} nil {c})",
        f"(or nil false {a})",
        f"(dotimes [i 3] {a})",
        f"(do (def v{abs(a)} {b}) (+ v{abs(a)} {c}))",
        f"(let [{{x :x y :y :as all}} {{:x {a} :y {b}}}] [x y (count all)])",
        f"(let [[_ _ third] [{a} {b} {c}]] third)",
        f"(let [m {{:a {a}}}] (update m :a #(* % {b})))",
    ])
    add(t)
for e in ["(let [x 1 x (inc x)] x)", "(let [[a b] nil] [a b])", "(let [{:strs [a]} {\"a\" 5}] a)",
          "(let [{:syms [s]} {'s 7}] s)", "(let [[x & ys :as all] [1 2 3]] [x ys all])",
          "(defn sq [x] (* x x))", "(do (defn sq [x] (* x x)) (map sq [1 2 3]))",
          "(do (defn f [{:keys [a] :or {a 10}}] a) [(f {}) (f {:a 1})])",
          "(do (defn g [a & {:keys [b] :or {b 2}}] [a b]) [(g 1) (g 1 :b 3)])",
          "(do (def counter 0) (def counter (inc counter)) counter)",
          "(loop [[x & xs] [1 2 3] sum 0] (if x (recur xs (+ sum x)) sum))",
          "(case \"b\" \"a\" 1 \"b\" 2 0)", "(case :z :a 1)", "(case [1 2] [1 2] :vec :no)",
          "(cond)", "(cond false 1)", "(when false 1)", "(if nil 1)", "(do)", "(let [] 5)",
          "(condp some [1 2 3] #{4 5} :a #{2 3} :>> inc)", "(condp < 5 10 :big 3 :small)",
          "(-> [1 2 3] (conj 4) reverse first)", "(->> (range 10) (filter even?) (map #(* % %)) (take 3))",
          "(some->> nil (map inc))", "(cond->> [1 2] true (map inc) false (map dec))",
          "(for [[k v] {:a 1 :b 2}] (str (name k) v))", "(for [x [1 2 3] :let [y (* x 10)]] y)",
          "(for [x (range 5) :while (< x 3)] x)", "(for [x [1 2] y [x (* 10 x)]] y)",
          "(doseq [x [1 2]] x)", "(with-out-str (doseq [x [1 2]] (print x)))",
          "(with-out-str (println \"a\" 1) (prn :k))", "(with-out-str (printf \"%d-%s\" 1 \"x\"))",
          "(let [f #(+ %1 %2)] (f 1 2))", "(#(apply + %&) 1 2 3)", "(#(vector %) 1)",
          "(map #(vector %1 %2) [1 2] [3 4])", "((fn [[a b]] (+ a b)) [1 2])",
          "(if-some [x nil] :some :none)", "(if-some [x false] x :none)", "(when-some [x 0] x)",
          "(when-first [x [9 8]] x)", "(when-first [x []] x)", "(trampoline (fn [] 5))",
          "(try (/ 1 0) (catch ArithmeticException e :div-zero))",
          "(try (throw (ex-info \"bad\" {:code 7})) (catch Exception e (ex-data e)))",
          "(try (throw (ex-info \"bad\" {:code 7})) (catch Exception e (ex-message e)))",
          "(try 1 (finally 2))", "(try (nth [] 1) (catch Exception e :caught))",
          "(try (assert false) (catch Throwable e :assert))", "(ex-message (ex-info \"m\" {}))",
          "(ex-data (ex-info \"m\" {:a 1}))", "(throw (ex-info \"boom\" {}))",
          "(do (defonce once 1) (defonce once 2) once)", "(let [f (memoize inc)] [(f 1) (f 1)])",
          "(fn? (memoize inc))"]:
    add(e)

# ---- records: the data processing programs do ----
REC_TEMPLATES = [
    "(->> {P} (filter #(> (:age %) {n})) (map :name))",
    "(->> {P} (group-by :dept) (map (fn [[k v]] [k (count v)])) (into {{}}))",
    "(->> {P} (sort-by :salary >) (map :name) (take {k}))",
    "(->> {P} (map :salary) (reduce +))",
    "(/ (reduce + (map :age {P})) (count {P}))",
    "(->> {P} (filter (comp #{{:eng}} :dept)) (map :salary) (apply max))",
    "(->> {P} (sort-by (juxt :age :name)) (map :name))",
    "(->> {P} (map #(select-keys % [:name :dept])) (take {k}))",
    "(->> {P} (group-by :age) keys sort)",
    "(update-vals (group-by :dept {P}) #(map :name %))",
    "(->> {P} (map :dept) frequencies)",
    "(->> {P} (remove #(= :ops (:dept %))) (map :age) sort)",
    "(reduce (fn [m p] (update m (:dept p) (fnil + 0) (:salary p))) {{}} {P})",
    "(->> {P} (map (juxt :name :age)) (into {{}}))",
    "(some #(when (= {n} (:age %)) (:name %)) {P})",
    "(->> {P} (filter #(< {n} (:salary %))) count)",
    "(->> {P} (map #(assoc % :senior (> (:age %) {n}))) (filter :senior) (map :name))",
    "(apply max-key :age {P})",
    "(:name (apply min-key :salary {P}))",
    "(->> {P} (sort-by :name #(compare %2 %1)) first :name)",
    "(let [by-dept (group-by :dept {P})] (into {{}} (map (fn [[d ps]] [d (reduce + (map :salary ps))]) by-dept)))",
    "(->> {C} (mapcat :files) distinct sort)",
    "(->> {C} (group-by :author) (map (fn [[a cs]] [a (reduce + (map :added cs))])) (sort-by second >))",
    "(->> {C} (filter #(pos? (:deleted %))) (map :sha))",
    "(->> {C} (map #(- (:added %) (:deleted %))) (reduce +))",
    "(->> {C} (mapcat :files) (map #(first (str/split % #\"/\"))) frequencies)",
    "(->> {C} (filter #(some (fn [f] (str/ends-with? f \".md\")) (:files %))) (map :author) set)",
    "(->> {C} (sort-by :added) last :sha)",
    "(->> {C} (map :author) distinct count)",
    "(->> {C} (map (fn [{{:keys [sha files]}}] [sha (count files)])) (into (sorted-map)))",
    "(transduce (comp (map :added) (filter #(> % {n}))) + {C})",
    "(into [] (comp (mapcat :files) (filter #(str/starts-with? % \"src\")) (distinct-free)) {C})",
    "(->> {C} (keep #(when (> (:added %) {n}) (:author %))) frequencies)",
    "(->> {C} (partition-by :author) (map count))",
    "(->> {C} (map :added) (partition 2 1) (map (fn [[a b]] (- b a))))",
]
for t in REC_TEMPLATES:
    for _ in range(3):
        e = t.format(n=R.choice([5, 10, 25, 30, 37, 40, 85, 100]), k=R.choice([1, 2, 3]),
                     P="{P}", C="{C}")
        e = e.replace("{P}", PEOPLE).replace("{C}", COMMITS)
        if "distinct-free" in e:
            e = e.replace(" (distinct-free)", "")
        add(e)

# ---- newer builtins: transducers, sorted collections, ranges ----
for e in ["(transduce (map inc) + [1 2 3])", "(transduce (filter odd?) + 10 (range 10))",
          "(into [] (comp (map inc) (filter even?)) (range 10))", "(sequence (map str) [1 2])",
          "(into [] (take 3) (range 100))", "(into [] (drop 8) (range 10))",
          "(into #{} (map #(mod % 3)) (range 10))", "(into [] (mapcat reverse) [[1 2] [3 4]])",
          "(into [] cat [[1] [2 3]])", "(into [] (keep #(when (odd? %) (* % %))) (range 6))",
          "(into [] (remove nil?) [1 nil 2])", "(into [] (take-while #(< % 4)) (range 10))",
          "(into [] (drop-while #(< % 4)) (range 7))", "(transduce (map :n) max 0 [{:n 3} {:n 5}])",
          "(transduce (comp (take 2) (map inc)) conj [] [5 6 7])", "(transduce identity + [1 2])",
          "(eduction (map inc) [1 2])", "(transduce (map inc) (completing + -) 0 [1 2])",
          "(take 10 (range 10000000))", "(first (range))", "(count (range 10000000))",
          "(nth (range 5000000) 4999999)", "(last (range 3 3000000 7))", "(reduce + (range 1000000))",
          "(drop 999998 (range 1000000))", "(take-while #(< % 3) (range 1000000))",
          "(= (range 2000) (vec (range 2000)))", "(apply max (range 100000))",
          "(sorted-set-by > 1 3 2)", "(subseq (sorted-set 1 2 3 4) >= 3)",
          "(rsubseq (sorted-map 1 :a 2 :b 3 :c) < 3)", "(first (sorted-map :b 2 :a 1))",
          "(vals (sorted-map \"b\" 2 \"a\" 1))", "(seq (sorted-set \"pear\" \"apple\"))",
          "(combinations-missing)", "(pcalls (fn [] 1) (fn [] 2))", "(pmap inc [1 2 3])",
          "(boolean (some even? [1 3]))", "(rand-int 1)", "(count (shuffle [1 2 3]))",
          "(rand-nth [7])", "(int (rand 1))", "(< (rand) 1)"]:
    if "missing" not in e:
        add(e)

# ---- errors ----
for e in ["(+ 1 \"a\")", "(nth [1 2] 9)", "(assoc 1 :a 2)", "(inc nil)", "(first 5)", "(count 5)",
          "(get-in 5 [:a] 1)", "(subs \"abc\" 2 1)", "(keyword 5)", "(.toUpperCase nil)",
          "(name nil)", "(str/join 5)", "(apply + 1)", "(reduce + 5)", "(map inc 5)",
          "(conj \"a\" 1)", "(dissoc [1] 0)", "(vec 5)", "(int \"5\")", "(long nil)", "(< 1 nil)",
          "(compare 1 :a)", "(sort [1 :a])", "(unknown-fn 1)", "(let [x] x)", "(fn [x x] x)",
          "(1 2 3)", "(:a)", "(throw (ex-info \"x\" {}))", "(Integer/parseInt \"1.5\")",
          "(re-find \"notregex\" \"a\")", "(max)", "(min \"a\" \"b\")", "(zipmap 1 2)",
          "(update {} :a inc)", "(assoc [] 3 1)", "(range \"a\")", "(take \"a\" [1])",
          "(parse-long 5)", "(str/split \"a\" nil)", "(merge 1 2)", "(into 1 [2])",
          "(let [[a] {:a 1}] a)", "(nth {:a 1} 0)", "(inc 9223372036854775807)"]:
    add(e)

for line in out:
    print(line)
