# grammars.cmake: fetches the tree-sitter grammars quarry compiles in (C and C++) from the
# npm registry at configure time, checks each tarball against the SHA-256 recorded here,
# and caches them under the build directory, so that nothing is fetched at run time and a
# rebuild fetches nothing. The grammar sources are third-party generated code: they are
# never committed. Pinned to 0.23.x: ABI 14, what Debian's libtree-sitter 0.20.7 loads
# (0.24 and later are ABI 15 and do not load).
#
# QUARRY_GRAMMAR_DIR (cache variable) may point at a directory that already holds the
# tarballs (an offline mirror): they are still checked against the recorded digests.

set(QUARRY_GRAMMAR_DIR "${CMAKE_BINARY_DIR}/grammars" CACHE PATH "where the grammar tarballs are cached")

# name version sha256 (of the npm tarball; npm's own sha1 is in the comment)
set(QUARRY_GRAMMARS
    "tree-sitter-c|0.23.6|88175d4425037ec0026233a44f82064a676573b1fd748fc709ae607332151243"
    # sha1 62a7a69a417cbf022fa97a8d5f7e2afb5712dcfb
    "tree-sitter-cpp|0.23.4|615d152f70e7a6bed8f15a93c3c0c264c40dc71c1b6a1445646fff9439e776bc"
    # sha1 f40dd18f6154012a357e991b757e051cf11ca98f
)

set(QUARRY_GRAMMAR_SOURCES "")
foreach(entry ${QUARRY_GRAMMARS})
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 gname)
  list(GET parts 1 gversion)
  list(GET parts 2 gsha)
  set(tgz "${QUARRY_GRAMMAR_DIR}/${gname}-${gversion}.tgz")
  set(dir "${QUARRY_GRAMMAR_DIR}/${gname}-${gversion}")
  set(url "https://registry.npmjs.org/${gname}/-/${gname}-${gversion}.tgz")
  set(have FALSE)
  if(EXISTS "${tgz}")
    file(SHA256 "${tgz}" got)
    if(got STREQUAL gsha)
      set(have TRUE)
    else()
      file(REMOVE "${tgz}")
    endif()
  endif()
  if(NOT have)
    message(STATUS "grammars: fetching ${url}")
    file(DOWNLOAD "${url}" "${tgz}.part" STATUS st TIMEOUT 120)
    list(GET st 0 code)
    list(GET st 1 msg)
    if(NOT code EQUAL 0)
      file(REMOVE "${tgz}.part")
      message(FATAL_ERROR
        "grammars: cannot fetch '${url}': ${msg}\n"
        "quarry compiles the tree-sitter grammars ${gname}@${gversion} from the npm registry "
        "at build time and the registry is unreachable. Fetch the tarball on a machine that "
        "can reach it and put it at '${tgz}' (or set -DQUARRY_GRAMMAR_DIR=DIR).")
    endif()
    file(SHA256 "${tgz}.part" got)
    if(NOT got STREQUAL gsha)
      file(REMOVE "${tgz}.part")
      message(FATAL_ERROR "grammars: '${url}' has sha256 ${got}, expected ${gsha}: refusing it")
    endif()
    file(RENAME "${tgz}.part" "${tgz}")
  endif()
  if(NOT EXISTS "${dir}/src/parser.c")
    file(REMOVE_RECURSE "${dir}" "${dir}.tmp")
    file(ARCHIVE_EXTRACT INPUT "${tgz}" DESTINATION "${dir}.tmp")
    file(RENAME "${dir}.tmp/package" "${dir}")
    file(REMOVE_RECURSE "${dir}.tmp")
  endif()
  list(APPEND QUARRY_GRAMMAR_SOURCES "${dir}/src/parser.c")
  if(EXISTS "${dir}/src/scanner.c")
    list(APPEND QUARRY_GRAMMAR_SOURCES "${dir}/src/scanner.c")
  endif()
endforeach()

# generated code: built without quarry's warnings (not ours to fix) and lightly optimized
# (the C++ tables are 17 MB of C)
add_library(quarry_grammars STATIC ${QUARRY_GRAMMAR_SOURCES})
set_source_files_properties(${QUARRY_GRAMMAR_SOURCES} PROPERTIES COMPILE_OPTIONS "-w;-O1")
set_target_properties(quarry_grammars PROPERTIES C_STANDARD 11 C_EXTENSIONS ON)
