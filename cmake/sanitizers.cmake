# Sanitizer builds apply to every target in the tree (GoogleTest included,
# which is why tests build it from source), so flags are set globally.
# Debug info: the sanitizer presets build with -g1 (CMakePresets.json):
# line tables are all a report needs (file:line in every frame), and full
# debug info made these builds about a quarter slower in CI.
if(LANES_SANITIZE)
  set(_lanes_san_flags "-fsanitize=${LANES_SANITIZE}" -fno-omit-frame-pointer)
  if(LANES_SANITIZE MATCHES "undefined")
    list(APPEND _lanes_san_flags -fno-sanitize-recover=undefined)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
      # clang 14's -fsanitize=function emits prologue data that its coroutine
      # splitting cannot place ("Cannot represent a difference across
      # sections" on Asio's coroutines). The other UBSan checks stay on.
      list(APPEND _lanes_san_flags -fno-sanitize=function)
    endif()
  endif()
  add_compile_options(${_lanes_san_flags})
  add_link_options(${_lanes_san_flags})
endif()
