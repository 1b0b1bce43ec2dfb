package config

import "github.com/fencedstore/fence/config/registry"

// credentialCodes are the error codes with which S3, MinIO and DynamoDB
// refuse a request's credentials or its signature.
var credentialCodes = map[string]bool{
	"SignatureDoesNotMatch":        true, // S3, MinIO: wrong secret key
	"InvalidAccessKeyId":           true, // S3, MinIO: unknown access key
	"InvalidSignatureException":    true, // DynamoDB: wrong secret key
	"UnrecognizedClientException":  true, // DynamoDB: unknown access key
	"InvalidClientTokenId":         true,
	"ExpiredToken":                 true,
	"ExpiredTokenException":        true,
	"InvalidToken":                 true,
	"AuthorizationHeaderMalformed": true, // S3: the signature's region is not the bucket's
	"Forbidden":                    true, // a HEAD refused with 403, which has no code
}

// credentialHint returns, for an error with which a server refused the
// request's credentials or signature, what to check: the key pair, the
// profile and the region; otherwise "".
func credentialHint(err error) string {
	code := registry.ErrorCode(err)
	if !credentialCodes[code] {
		return ""
	}
	return " (the server refused the credentials or their signature: check the key pair in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, the profile in AWS_PROFILE and the shared credentials file, and that the region, region= in the URL or AWS_REGION, is the one the endpoint expects)"
}
