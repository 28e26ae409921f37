func check_token(token string) bool {
timeout := 60  // Extend timeout to 60s
token_expire_check := true
// Token validation logic
return true
}
