# Installs the library, its headers and a package config so that another
# project can `find_package(lanes)` and link `lanes::lanes`.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS lanes EXPORT lanesTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/lanes DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT lanesTargets NAMESPACE lanes:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lanes)

configure_package_config_file(cmake/lanesConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/lanesConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lanes)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/lanesConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/lanesConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/lanesConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lanes)
if(LANES_BUILD_TOOL)
  install(TARGETS lanes_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
