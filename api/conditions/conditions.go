// Package conditions holds the condition type and reasons of a Sample's status, one definition for
// every version of the Sample API: each version's status.conditions speaks of the same ConfigMap in
// the same words, so a condition read through either version means the same thing. Version
// packages name these constants; this package imports nothing of the operator's.
package conditions

// Ready is the condition type that says whether the ConfigMap holds what the Sample's spec asks
// for (v1alpha1's message, v1beta1's data).
const Ready = "Ready"

// Reasons of the Ready condition. Each reason of Ready=False says what to do about it; the
// condition's message carries the details, in the API server's own words where it refused a write.
// The operator retries every refusal with backoff, and the Sample recovers by itself once the
// cause is gone.
const (
	// ReasonSynced (Ready=True): the ConfigMap exists, is controlled by the Sample and holds what
	// its spec asks for.
	ReasonSynced = "Synced"
	// ReasonConfigMapConflict (Ready=False): a ConfigMap of that name exists and is not controlled
	// by this Sample. It is left exactly as it is. To do: delete it to let the Sample take the
	// name, or give the Sample another name.
	ReasonConfigMapConflict = "ConfigMapConflict"
	// ReasonConfigMapRefused (Ready=False): the API server refused to create or update the
	// ConfigMap: an admission policy or webhook denied it, or the ConfigMap would be invalid. The
	// ConfigMap keeps what it held. To do: read the message, which quotes the refusal; change
	// the Sample's spec, or ask whoever owns the policy.
	ReasonConfigMapRefused = "ConfigMapRefused"
	// ReasonQuotaExceeded (Ready=False): a ResourceQuota of the namespace allows no more
	// ConfigMaps (or no more of what they take). To do: raise the quota, or delete ConfigMaps the
	// namespace no longer needs.
	ReasonQuotaExceeded = "QuotaExceeded"
	// ReasonConfigMapForbidden (Ready=False): the operator's own permissions (RBAC) do not let it
	// write ConfigMaps in this namespace. To do: ask the cluster's administrator; the operator
	// needs what config/rbac grants.
	ReasonConfigMapForbidden = "ConfigMapForbidden"
)
