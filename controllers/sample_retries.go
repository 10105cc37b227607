package controllers

import (
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// MaxRetryDelay caps how long a Sample whose pass failed waits for its next try. The wait starts
// at 5 ms and doubles with each failure, so a refusal that lasted a few seconds is retried within
// a few seconds of its end; the cap bounds the wait after a long one. 30 s, where
// controller-runtime's default allows 1000 s: whoever lifts a refusal (raises a quota, fixes a
// policy) sees the Sample recover within half a minute, about the time one waits before looking
// again, while a Sample that keeps failing costs one refused write every 30 s, and the
// controller-wide bucket (10 retries a second) bounds the total however many Samples fail.
const MaxRetryDelay = 30 * time.Second

// retryRateLimiter paces the retries of failed passes: controller-runtime's default, the larger of
// a per-Sample exponential backoff and a controller-wide token bucket, with the backoff capped at
// MaxRetryDelay.
func retryRateLimiter() workqueue.TypedRateLimiter[reconcile.Request] {
	return workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](5*time.Millisecond, MaxRetryDelay),
		&workqueue.TypedBucketRateLimiter[reconcile.Request]{Limiter: rate.NewLimiter(rate.Limit(10), 100)},
	)
}
