# cmake -P script: install LANES_BUILD_DIR into SCRATCH/prefix, build the
# consumer in SCRATCH/build against it, run it.
file(REMOVE_RECURSE ${SCRATCH})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${LANES_BUILD_DIR} --prefix ${SCRATCH}/prefix
                COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${SCRATCH}/build -G Ninja
                        -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${SCRATCH}/prefix
                COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${SCRATCH}/build COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${SCRATCH}/build/consumer OUTPUT_VARIABLE out COMMAND_ERROR_IS_FATAL ANY)
if(NOT out MATCHES "^consumer sees [1-9][0-9]* cpus")
  message(FATAL_ERROR "unexpected consumer output: ${out}")
endif()
message(STATUS "consumer ran: ${out}")
