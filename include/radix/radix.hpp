// radix — umbrella header: everything a host program needs.
#pragma once
#include "radix/calibrate.hpp"
#include "radix/decomposer.hpp"
#include "radix/error.hpp"
#include "radix/key_traits.hpp"
#include "radix/options.hpp"
#include "radix/sort.hpp"
#include "radix/sorter.hpp"
