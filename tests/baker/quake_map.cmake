mixforge_test(quake_map_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/quake_map_test.cpp
  LIBS mixforge_quake_map)
mixforge_test(quake_scene_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/quake_scene_test.cpp
  LIBS mixforge_quake_scene)
