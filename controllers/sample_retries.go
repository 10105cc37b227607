package controllers

import (
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// MaxRetryDelay caps how long a Sample whose pass failed waits for its next try.
const MaxRetryDelay = 30 * time.Second

// retryRateLimiter paces the retries of failed passes.
func retryRateLimiter() workqueue.TypedRateLimiter[reconcile.Request] {
	return workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]()
}
