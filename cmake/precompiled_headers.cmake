# lanes_precompiled_headers(TARGET HEADER...): TARGET's files start from a
# precompiled HEADER..., with clang only. Their parse was about half of a
# file's compile time: on the tsan preset, tests/io's 13 files took 84 s
# of CPU, 41 s with one (its own build included).
# Not with g++ 12: the libstdc++ headers read from a .gch no longer count
# as system headers for its late warnings, and -Werror then fails on its
# known false -Warray-bounds in std::string's inlined memcpy
# (tests/budget/budget_test.cpp), a warning the same file does not get
# when it parses the headers.
function(lanes_precompiled_headers target)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()

# lanes_reuse_precompiled_headers(TARGET FROM): TARGET's files start from
# the header FROM precompiled (with the same compiler condition).
function(lanes_reuse_precompiled_headers target from)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_precompile_headers(${target} REUSE_FROM ${from})
  endif()
endfunction()
