# One place for the warning set every lanes target builds with.
function(lanes_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion)
  if(LANES_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
