# Quake 1 .map scenes: parser, convex brush clipping, ericw-tools light entities, albedo by
# texture name. Standard library only, so the baker's heavier parts do not leak in here.
add_library(mixforge_quake_map STATIC
  ${CMAKE_CURRENT_LIST_DIR}/quake_map.cpp
  ${CMAKE_CURRENT_LIST_DIR}/brush.cpp
  ${CMAKE_CURRENT_LIST_DIR}/light_entities.cpp
  ${CMAKE_CURRENT_LIST_DIR}/texture_albedo.cpp)
target_include_directories(mixforge_quake_map PUBLIC ${PROJECT_SOURCE_DIR})

# The adapter from a parsed map to the baker's Scene (baker/scene/scene.hpp: header-only types).
add_library(mixforge_quake_scene STATIC ${CMAKE_CURRENT_LIST_DIR}/quake_scene.cpp)
target_link_libraries(mixforge_quake_scene PUBLIC mixforge_quake_map)
