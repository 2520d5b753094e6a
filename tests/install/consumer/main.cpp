#include <iostream>

#include <lanes/budget.hpp>

int main() {
  const auto b = lanes::budget_builder().ignore_environment().build();
  std::cout << "consumer sees " << b.cpus.value << " cpus\n";
}
