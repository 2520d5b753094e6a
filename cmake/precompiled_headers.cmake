# lanes_precompiled_headers(TARGET HEADER...): TARGET's files start from a
# precompiled HEADER..., with clang only. Their parse was about half of a
# file's compile time: on the tsan preset, tests/io's 13 files took 84 s
# of CPU, 41 s with one (its own build included).
# Not with g++ 12: with a .gch it reports a false -Warray-bounds in
# std::string's inlined memcpy (libstdc++'s char_traits.h; in
# tests/budget/budget_test.cpp and cgroup_probe_test.cpp), which -Werror
# fails, and which the same files do not get when they parse the headers
# (seemingly the headers lose their system-header standing for that late
# warning when read from the .gch).
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
