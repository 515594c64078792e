# gen_social.awk: a synthetic social and bibliographic graph in N-Triples (issue 28's
# second graph): PEOPLE people and PAPERS papers with plain, typed and language-tagged
# literals, integers, decimals, doubles, dates and dateTimes with and without zones, and
# names beyond ASCII (accents, sharp s). Deterministic (a fixed linear congruential
# generator). PEOPLE=50000 PAPERS=90000 gives about 1.67M triples.
# usage: awk -v PEOPLE=50000 -v PAPERS=90000 -f gen_social.awk > social.nt
function rnd(n) { seed = (seed * 1103515245 + 12345) % 2147483648; return int(seed / 65536) % n }
function person(i) { return "<http://bench/person/" i ">" }
function paper(i) { return "<http://bench/paper/" i ">" }
function two(n) { return n < 10 ? "0" n : n }
BEGIN {
  seed = 7
  P = "<http://bench/p#"; C = "<http://bench/c#"
  T = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
  X = "^^<http://www.w3.org/2001/XMLSchema#"
  split("Émile Anna Ana Jürgen Zoë Łukasz Ole Renée Chloé Søren Ines Ömer Mia Noah Élodie Hugo", first, " ")
  split("Straße Müller Dupont García Nowak Öztürk Ståhl Smith Lefèvre Rossi Kowalski Weiß", last, " ")
  split("Paris München Kraków Zürich Oslo Lyon Sevilla Göteborg Porto Łódź", city, " ")
  split("graphs queries types dates unicode numbers joins indexes caches streams", word, " ")
  zones[0] = ""; zones[1] = "Z"; zones[2] = "+02:00"; zones[3] = "-05:00"; zones[4] = "+05:30"
  for (i = 0; i < PEOPLE; i++) {
    s = person(i)
    print s, T, C "Person> ."
    print s, P "name>", "\"" first[1 + rnd(16)] " " last[1 + rnd(12)] "\" ."
    print s, P "nick>", "\"u" i "\"@en ."
    print s, P "age>", "\"" (18 + rnd(60)) "\"" X "integer> ."
    print s, P "height>", "\"1." two(rnd(100)) "\"" X "decimal> ."
    print s, P "score>", "\"" rnd(1000) "." rnd(10) "E-1\"" X "double> ."
    y = 1950 + rnd(55); m = 1 + rnd(12); d = 1 + rnd(28)
    print s, P "born>", "\"" y "-" two(m) "-" two(d) (rnd(3) == 0 ? "Z" : "") "\"" X "date> ."
    y = 2005 + rnd(19); m = 1 + rnd(12); d = 1 + rnd(28)
    print s, P "joined>", "\"" y "-" two(m) "-" two(d) "T" two(rnd(24)) ":" two(rnd(60)) ":00" zones[rnd(5)] "\"" X "dateTime> ."
    print s, P "city>", "\"" city[1 + rnd(10)] "\" ."
    for (k = 0; k < 3; k++) print s, P "knows>", person(rnd(PEOPLE)), "."
  }
  for (i = 0; i < PAPERS; i++) {
    s = paper(i)
    print s, T, C "Paper> ."
    print s, P "title>", "\"On " word[1 + rnd(10)] " and " word[1 + rnd(10)] " " i "\"@en ."
    # first authors: a skewed choice, so many people have several papers
    print s, P "firstAuthor>", person(rnd(rnd(PEOPLE) + 1)), "."
    for (k = 0; k < 2; k++) print s, P "author>", person(rnd(PEOPLE)), "."
    y = 1990 + rnd(34)
    print s, P "year>", "\"" y "\"" X "integer> ."
    print s, P "published>", "\"" y "-" two(1 + rnd(12)) "-" two(1 + rnd(28)) "\"" X "date> ."
    if (i > 0) for (k = 0; k < 3; k++) print s, P "cites>", paper(rnd(i)), "."
    print s, P "pages>", "\"" (4 + rnd(40)) "\"" X "integer> ."
    print s, P "price>", "\"" rnd(200) "." two(rnd(100)) "\"" X "decimal> ."
  }
}
