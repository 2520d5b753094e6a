// io_backend: the names, the environment, the builder winning over it,
// and the backend a runtime (and a system's runtime) reports it got.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <optional>
#include <string>

#include <lanes/config_error.hpp>
#include <lanes/io/io_backend.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/system.hpp>

namespace lanes {
namespace {

// Whether io_uring runs here (the uring cases expect what it allows).
bool uring_runs() {
  try {
    (void)choose_io_backend(io_backend::uring);
    return true;
  } catch (const config_error&) {
    return false;
  }
}

// Sets LANES_IO_BACKEND for the scope of one test.
class backend_variable {
 public:
  explicit backend_variable(const char* value) { ::setenv("LANES_IO_BACKEND", value, 1); }
  ~backend_variable() { ::unsetenv("LANES_IO_BACKEND"); }
  backend_variable(const backend_variable&) = delete;
  backend_variable& operator=(const backend_variable&) = delete;
};

TEST(IoBackend, NamesRoundTripAndBadTextSaysWhereAndWhat) {
  for (const auto b : {io_backend::automatic, io_backend::epoll, io_backend::uring}) {
    EXPECT_EQ(parse_io_backend(to_string(b), "test"), b);
  }
  try {
    (void)parse_io_backend("io_uring", "LANES_IO_BACKEND");
    ADD_FAILURE() << "parsed";
  } catch (const config_error& e) {
    EXPECT_EQ(std::string(e.what()), "LANES_IO_BACKEND=io_uring: not an io backend (epoll, uring or auto)");
  }
}

TEST(IoBackend, ARuntimeReportsTheBackendItWasBuiltWith) {
  EXPECT_EQ(runtime::current_thread().io_backend(io_backend::epoll).build().io_backend(), io_backend::epoll);
  if (uring_runs()) {
    EXPECT_EQ(runtime::multi_thread().worker_threads(1).io_backend(io_backend::uring).build().io_backend(),
              io_backend::uring);
  } else {
    EXPECT_THROW((void)runtime::current_thread().io_backend(io_backend::uring).build(), config_error);
  }
  const auto automatic = runtime::current_thread().build().io_backend();
  EXPECT_EQ(automatic, uring_runs() ? io_backend::uring : io_backend::epoll);
}

TEST(IoBackend, TheEnvironmentChoosesAndTheBuilderWins) {
  {
    backend_variable env("epoll");
    EXPECT_EQ(runtime::current_thread().build().io_backend(), io_backend::epoll);
    EXPECT_EQ(choose_io_backend().why, "LANES_IO_BACKEND epoll");
    if (uring_runs()) {
      EXPECT_EQ(runtime::current_thread().io_backend(io_backend::uring).build().io_backend(), io_backend::uring);
    }
  }
  {
    backend_variable env("sideways");
    EXPECT_THROW((void)runtime::current_thread().build(), config_error);
    EXPECT_EQ(runtime::current_thread().io_backend(io_backend::epoll).build().io_backend(), io_backend::epoll);
  }
}

TEST(IoBackend, ASystemPassesItsChoiceToItsRuntime) {
  auto sys = system::builder().io_threads(1).compute_threads(1).io_backend(io_backend::epoll).build();
  EXPECT_EQ(sys.io().io_backend(), io_backend::epoll);
}

}  // namespace
}  // namespace lanes
