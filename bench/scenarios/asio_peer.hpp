// Boost.Asio with C++20 coroutines, as the peer. Boost 1.74's headers use
// std::exchange without <utility>, and do not detect coroutine support on
// clang 14 with libstdc++ (CMake defines BOOST_ASIO_HAS_CO_AWAIT for it).
#pragma once

#include <coroutine>
#include <utility>

#include <boost/asio.hpp>

namespace asio = boost::asio;
