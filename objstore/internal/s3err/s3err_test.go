package s3err

import (
	"errors"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/rules"
)

func TestClass(t *testing.T) {
	for _, tc := range []struct {
		code   string
		status int
		want   error
	}{
		{"NoSuchBucket", 404, objstore.ErrNoBucket},
		{"NoSuchKey", 404, objstore.ErrNotFound},
		{"NotFound", 404, objstore.ErrNotFound},
		{"", 404, objstore.ErrNotFound},
		{"NoSuchUpload", 404, nil},
		{"NotModified", 304, driver.ErrNotModified},
		{"", 304, driver.ErrNotModified},
		{"PreconditionFailed", 412, driver.ErrPreconditionFailed},
		{"", 412, driver.ErrPreconditionFailed},
		{"ConditionalRequestConflict", 409, driver.ErrConflict},
		{"BucketAlreadyExists", 409, nil},
		{"AccessDenied", 403, driver.ErrPermission},
		{"InvalidAccessKeyId", 403, driver.ErrPermission},
		{"SignatureDoesNotMatch", 403, driver.ErrPermission},
		{"AllAccessDisabled", 403, driver.ErrPermission},
		{"", 403, driver.ErrPermission},
		{"RequestTimeTooSkewed", 403, nil},
		{"XMinioStorageFull", 507, driver.ErrNoSpace},
		{"KeyTooLongError", 400, driver.ErrPermanent},
		{"MissingContentLength", 411, driver.ErrPermanent},
		{"", 411, driver.ErrPermanent},
		{"InvalidBucketName", 400, driver.ErrPermanent},
		{"EntityTooLarge", 400, driver.ErrPermanent},
		{"ObjectParentIsFile", 409, driver.ErrPermanent},
		{"ExistingObjectIsDirectory", 409, driver.ErrPermanent},
		{"DirectoryObjectContainsData", 400, driver.ErrPermanent},
		{"InsufficientStorage", 507, driver.ErrNoSpace},
		{"Forbidden", 403, driver.ErrPermission},
		{"AccountProblem", 403, driver.ErrPermission},
		{"NotImplemented", 501, nil},
		{"ExpiredToken", 400, nil},
		{"SlowDown", 503, nil},
		{"InternalError", 500, nil},
		{"", 0, nil},
	} {
		if got := Class(tc.code, tc.status); got != tc.want {
			t.Errorf("Class(%q, %d) = %v, want %v", tc.code, tc.status, got, tc.want)
		}
	}
}

func TestCheckKeyCountsPrefix(t *testing.T) {
	key := strings.Repeat("k", MaxObjectKeyLen-2)
	if err := CheckKey("p/", key); err != nil {
		t.Fatalf("1024 bytes with the prefix: %v", err)
	}
	err := CheckKey("pp/", key)
	if !errors.Is(err, rules.ErrInvalid) || !strings.Contains(err.Error(), `prefix "pp/"`) || !strings.Contains(err.Error(), "1025 bytes") {
		t.Fatalf("1025 bytes with the prefix: %v, want ErrInvalid naming length, prefix and limit", err)
	}
}
