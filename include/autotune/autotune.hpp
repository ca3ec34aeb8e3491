// autotune: the fastest known CUDA kernel variant for each GPU, tuned once and looked up at run time.
// The umbrella header: include this, link autotune::autotune.
#pragma once

#include "autotune/argreduce.hpp"
#include "autotune/argreduce_problem.hpp"
#include "autotune/cache.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "autotune/histogram.hpp"
#include "autotune/histogram_range.hpp"
#include "autotune/histogram_range_problem.hpp"
#include "autotune/reduce.hpp"
#include "autotune/reduce_problem.hpp"
#include "autotune/resolution.hpp"
#include "autotune/segmented_reduce.hpp"
#include "autotune/segmented_reduce_problem.hpp"
#include "autotune/tuner.hpp"
