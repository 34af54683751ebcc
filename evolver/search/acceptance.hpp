#pragma once
// Logistic acceptance of a tournament: the loser (the member with the larger chi2) is
// removed with probability
//
//     P(remove) = 1 / (1 + exp(-d / T)),   d = ln(chi2_loser / chi2_winner) >= 0,
//
// T = the run's temperature. Equal scores remove the loser half the time; a loser twice
// as bad is removed with 1 / (1 + 2^(-1/T)) (T = 0.25: 94 %). chi2 values are clamped
// below at quality_floor(width) so noise-corrected estimates near or under zero compare
// sanely.
namespace mixforge::evolver {

// The exact chi2 of an ideal random n-bit function is about n^2 / 2^(n+1); good
// bijections of small widths get a few times below it, nothing gets 64 times below, so
// log-ratios are taken above n^2 / 2^(n+7) (and above 1e-15).
double quality_floor(int width);
// ln(max(chi2, floor)): the "quality" axis of the acceptance (lower is better).
double log_quality(double chi2, int width);
double removal_probability(double loser_chi2, double winner_chi2, double temperature, int width);

class Rng;
// The decision a tournament makes: true (remove the loser) with removal_probability.
bool remove_loser(double loser_chi2, double winner_chi2, double temperature, int width, Rng& rng);

}  // namespace mixforge::evolver
