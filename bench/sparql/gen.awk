# gen.awk: a synthetic code graph in N-Triples under quarry's code vocabulary
# (docs/sparql.md), shaped like a large C tree: MODS modules of FILES files, each file
# with FUNCS functions that call CALLS others (mostly in their module), and headers
# included by the files. Deterministic (a fixed linear congruential generator).
# usage: awk -v MODS=40 -v FILES=50 -v FUNCS=25 -v CALLS=4 -f gen.awk > graph.nt
function rnd(n) { seed = (seed * 1103515245 + 12345) % 2147483648; return int(seed / 65536) % n }
function fn(m, f, k) { return "<https://quarry.dev/code/function/src/m" m "/f" f ".c#fn_" m "_" f "_" k ">" }
function file(m, f) { return "<https://quarry.dev/code/file/src/m" m "/f" f ".c>" }
function hdr(m, h) { return "<https://quarry.dev/code/file/include/m" m "/h" h ".h>" }
BEGIN {
  seed = 42
  C = "<https://quarry.dev/code#"
  T = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
  I = "^^<http://www.w3.org/2001/XMLSchema#integer>"
  B = "^^<http://www.w3.org/2001/XMLSchema#boolean>"
  for (m = 0; m < MODS; m++) {
    for (h = 0; h < 8; h++) {
      print hdr(m, h), T, C "File> ."
      print hdr(m, h), C "path>", "\"include/m" m "/h" h ".h\" ."
      print hdr(m, h), C "name>", "\"h" h ".h\" ."
      if (h > 0) print hdr(m, h), C "includes>", hdr(m, rnd(h)), "."
      if (m > 0 && h == 0) print hdr(m, h), C "includes>", hdr(rnd(m), rnd(8)), "."
    }
    for (f = 0; f < FILES; f++) {
      print file(m, f), T, C "File> ."
      print file(m, f), C "path>", "\"src/m" m "/f" f ".c\" ."
      print file(m, f), C "name>", "\"f" f ".c\" ."
      for (i = 0; i < 4; i++) print file(m, f), C "includes>", hdr(m, rnd(8)), "."
      print file(m, f), C "includes>", hdr(rnd(MODS), rnd(8)), "."
      line = 1
      for (k = 0; k < FUNCS; k++) {
        x = fn(m, f, k)
        len = 3 + rnd(60)
        print x, T, C "Function> ."
        print x, C "name>", "\"fn_" m "_" f "_" k "\" ."
        print x, C "file>", file(m, f), "."
        print x, C "line>", "\"" line "\"" I, "."
        print x, C "endLine>", "\"" (line + len - 1) "\"" I, "."
        print x, C "lineCount>", "\"" len "\"" I, "."
        print x, C "static>", "\"" (rnd(10) < 3 ? "true" : "false") "\"" B, "."
        print file(m, f), C "defines>", x, "."
        line += len + 1
        for (c = 0; c < CALLS; c++) {
          r = rnd(10)
          if (r < 6) y = fn(m, f, rnd(FUNCS))
          else if (r < 9) y = fn(m, rnd(FILES), rnd(FUNCS))
          else y = fn(rnd(MODS), rnd(FILES), rnd(FUNCS))
          if (rnd(50) == 0) y = x
          print x, C "calls>", y, "."
        }
      }
    }
  }
}
