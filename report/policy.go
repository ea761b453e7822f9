package report

// policyWords names the policy a run used as the reports say it:
// "policy policies.yaml, variant asan", or "no policy".
func policyWords(k *Checked) string {
	if k.Policy == nil {
		return "no policy"
	}
	s := "policy " + *k.Policy
	if k.Variant != "" {
		s += ", variant " + k.Variant
	}
	return s
}
