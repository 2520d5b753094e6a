// The compute lane in one include: the pool, fork-join (join, scope,
// spawn, isolate) and the parallel algorithms. See docs/compute.md.
#pragma once

#include <lanes/compute/find.hpp>
#include <lanes/compute/for_each.hpp>
#include <lanes/compute/indices.hpp>
#include <lanes/compute/isolate.hpp>
#include <lanes/compute/join.hpp>
#include <lanes/compute/pool.hpp>
#include <lanes/compute/reduce.hpp>
#include <lanes/compute/scan.hpp>
#include <lanes/compute/scope.hpp>
#include <lanes/compute/sort.hpp>
#include <lanes/compute/spawn.hpp>
