# Install rules (docs/install.md).
#
# A normal build: `cmake --install <build> --prefix <P>` installs the C++ package: the public
# headers, the runtime's static libraries, libonnx_light.so (the C ABI), the two bridge
# libraries, the onnx-light tool, CMake packages (find_package(onnx_light CONFIG), and
# find_package(onnx_light_ort CONFIG) for the plugin host alone) and pkg-config files.
#
# A wheel build (scikit-build-core sets SKBUILD): only the Python package's native files,
# installed into the package folders that pyproject.toml ships.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if(SKBUILD)
  if(NOT ONNX_LIGHT_BUILD_PYTHON OR NOT ONNX_LIGHT_BUILD_ORT_PLUGIN)
    message(FATAL_ERROR "a wheel needs ONNX_LIGHT_BUILD_PYTHON and ONNX_LIGHT_BUILD_ORT_PLUGIN")
  endif()
  # libonnx_light.so beside the module; the plugin-host bridge finds it from its own folder.
  set_target_properties(onnx_light_python onnx_light_shared PROPERTIES INSTALL_RPATH "$ORIGIN")
  # Both bridges find it (the plugin of onnx-light's kernels: Highway's dispatch library,
  # libonnx_light_hwy.so, from cmake/OnnxLightWheelLibs.cmake) in onnx_light/.
  set_target_properties(onnx_light_ort_bridge_ops_ort_called_by_light
    onnx_light_ort_bridge_ops_light_called_by_ort PROPERTIES
    INSTALL_RPATH "$ORIGIN/../../onnx_light")
  install(TARGETS onnx_light_python onnx_light_shared LIBRARY DESTINATION onnx_light
    COMPONENT python)
  install(FILES ${ONNX_LIGHT_WHEEL_LIBS} DESTINATION onnx_light COMPONENT python)
  install(TARGETS onnx_light_ort_bridge_ops_ort_called_by_light
                  onnx_light_ort_bridge_ops_light_called_by_ort
    LIBRARY DESTINATION onnx_light_ort/lib COMPONENT python)
  # libonnxruntime.so.1 (ORT's C API on onnx-light) beside the bridges; the SONAME file only
  # (a wheel holds no symlinks); onnx_light_ort.ort_c_api_library_path() returns it.
  set_target_properties(onnx_light_ort_c_api PROPERTIES INSTALL_RPATH "$ORIGIN/../../onnx_light")
  install(TARGETS onnx_light_ort_c_api LIBRARY DESTINATION onnx_light_ort/lib COMPONENT python
    NAMELINK_SKIP)
  if(TARGET onnx_light_stub)
    install(DIRECTORY "${ONNX_LIGHT_STUB_DIR}/_core" DESTINATION onnx_light COMPONENT python)
  endif()
  return()
endif()

set(ONNX_LIGHT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake")

# Include paths as seen from the installed prefix.
target_include_directories(onnx_light_core PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_include_directories(onnx_light_shared PUBLIC
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_include_directories(onnx_light_ort_bridge_ops_ort_called_by_light PUBLIC
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_include_directories(onnx_light_ort_api_headers SYSTEM INTERFACE
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/onnx_light_ort/ort>)

# onnx_light:: — the runtime (C++ API, static) and the C ABI (shared).
set_target_properties(onnx_light_core PROPERTIES EXPORT_NAME core)
set_target_properties(onnx_light_onnx PROPERTIES EXPORT_NAME onnx)
set_target_properties(onnx_light_simd PROPERTIES EXPORT_NAME simd)
set_target_properties(onnx_light_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(onnx_light_shared PROPERTIES EXPORT_NAME shared)
set(_onnx_light_targets onnx_light_core onnx_light_onnx onnx_light_simd onnx_light_runtime
    onnx_light_shared)
install(TARGETS ${_onnx_light_targets} EXPORT onnx_lightTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS onnx-light RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/onnx_light DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# onnx_light_ort:: — the plugin host (ORT custom ops called by onnx-light) and the ORT API
# headers it publishes; the ORT plugin of onnx-light's kernels is a file for ORT to load.
# The bridge links libonnx_light.so, installed beside it.
set_target_properties(onnx_light_ort_bridge_ops_ort_called_by_light PROPERTIES
  INSTALL_RPATH "$ORIGIN")
install(TARGETS onnx_light_ort_bridge_ops_ort_called_by_light onnx_light_ort_api_headers
  onnx_light_shared EXPORT onnx_light_ortTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES onnx_light_ort/bridge_ops_ort_called_by_light/host.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/onnx_light_ort/bridge_ops_ort_called_by_light)
install(DIRECTORY "${ONNX_LIGHT_ORT_INCLUDE_DIR}/"
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/onnx_light_ort/ort FILES_MATCHING PATTERN "*.h")
if(ONNX_LIGHT_BUILD_ORT_PLUGIN)
  install(TARGETS onnx_light_ort_bridge_ops_light_called_by_ort
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

# libonnxruntime.so.1 and libonnxruntime.so (ORT's C API on onnx-light) in a folder of their
# own under the library folder: a program picks it with LD_LIBRARY_PATH (or links it with
# -L); in the library folder itself it would shadow a real ONNX Runtime installed in the
# same prefix for every program linked with -lonnxruntime. It finds libonnx_light.so one up.
set_target_properties(onnx_light_ort_c_api PROPERTIES INSTALL_RPATH "$ORIGIN/..")
install(TARGETS onnx_light_ort_c_api
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/onnx_light_ort_c_api COMPONENT ort_c_api)

# CMake packages.
install(EXPORT onnx_lightTargets NAMESPACE onnx_light::
  DESTINATION ${ONNX_LIGHT_INSTALL_CMAKEDIR}/onnx_light)
install(EXPORT onnx_light_ortTargets NAMESPACE onnx_light_ort::
  DESTINATION ${ONNX_LIGHT_INSTALL_CMAKEDIR}/onnx_light_ort)
foreach(pkg onnx_light onnx_light_ort)
  configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/${pkg}Config.cmake.in"
    "${PROJECT_BINARY_DIR}/install/${pkg}Config.cmake"
    INSTALL_DESTINATION ${ONNX_LIGHT_INSTALL_CMAKEDIR}/${pkg})
  write_basic_package_version_file("${PROJECT_BINARY_DIR}/install/${pkg}ConfigVersion.cmake"
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES "${PROJECT_BINARY_DIR}/install/${pkg}Config.cmake"
                "${PROJECT_BINARY_DIR}/install/${pkg}ConfigVersion.cmake"
    DESTINATION ${ONNX_LIGHT_INSTALL_CMAKEDIR}/${pkg})
endforeach()
# The static runtime links RE2: the package finds it as the build did.
install(FILES "${PROJECT_SOURCE_DIR}/cmake/OnnxLightRe2.cmake"
  DESTINATION ${ONNX_LIGHT_INSTALL_CMAKEDIR}/onnx_light)

# pkg-config: onnx_light (the C++ runtime, static: its dependencies are listed in Libs),
# onnx_light_c (the C ABI) and onnx_light_ort (the plugin host).
# Relocatable: each file finds the prefix from its own folder (${pcfiledir}).
file(RELATIVE_PATH ONNX_LIGHT_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
foreach(pc onnx_light onnx_light_c onnx_light_ort)
  configure_file("${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in" "${PROJECT_BINARY_DIR}/install/${pc}.pc"
    @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/install/${pc}.pc"
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
